// isa/glslang_entry.cpp — the one thing glslang 12's C interface cannot do:
// name the entry point of an HLSL shader.  (Its HLSL front end looks for a
// function with the entry point's name, and the C interface leaves that name
// empty, so any HLSL kernel compiles to an empty entry point.)  Newer glslang
// exports glslang_shader_set_entry_point; for 12, the C++ TShader does it.
#include <glslang/Include/glslang_c_interface.h>
#include <glslang/Public/ShaderLang.h>

extern "C" void isa_glslang_set_entry_point(glslang_shader_t *shader, const char *name)
{
    // glslang 12's c_interface.cpp defines glslang_shader_t as
    // struct { glslang::TShader *shader; std::string preprocessedGLSL; }.
    glslang::TShader *tshader = *reinterpret_cast<glslang::TShader **>(shader);
    tshader->setEntryPoint(name);
    tshader->setSourceEntryPoint(name);
}
