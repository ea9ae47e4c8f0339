// isa/glslang_shim.cpp — what glslang 12's C interface cannot do, done on
// its C++ objects:
//
//  * name the entry point of an HLSL shader (its HLSL front end looks for a
//    function with the entry point's name, and the C interface leaves that
//    name empty, so any HLSL kernel compiles to an empty entry point);
//  * HLSL 2021 short-circuit semantics.  glslang 12 parses `c ? a : b`, `a &&
//    b` and `a || b` with the pre-2021 HLSL rule (both operands evaluated),
//    so a wave operation or a memory read in the operand HLSL 2021 skips
//    runs for lanes that should not take part.  DXC defaults to HLSL 2021.
//    After parsing, every scalar `?:` is marked short-circuit and every
//    scalar `&&`/`||` becomes `a ? b : false` / `a ? true : b`; glslang's
//    SPIR-V generator then emits structured control flow for any operand
//    that is not a plain variable or constant;
//  * the StorageBuffer storage class for HLSL buffers at SPIR-V 1.4 and later;
//  * DXC's bindings for HLSL resources declared without register() or
//    [[vk::binding]] (glslang puts every one on binding 0);
//  * resolve #include through the caller's callbacks: glslang 12's C
//    interface declares glsl_include_callbacks_t but its preprocess step
//    always searches with a DirStackFileIncluder that starts at the process's
//    working directory.  isa_glslang_parse parses with the caller's includer
//    (isa/compile.c: the kernel's directory, never ".").
//
// glslang 12's c_interface.cpp defines glslang_shader_t as
// struct { glslang::TShader *shader; std::string preprocessedGLSL; }.
// It is built without RTTI, and so is this file.
#include <glslang/Include/glslang_c_interface.h>
#include <glslang/MachineIndependent/localintermediate.h>
#include <glslang/Public/ShaderLang.h>

#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

glslang::TShader *tshader_of(glslang_shader_t *shader)
{
    return *reinterpret_cast<glslang::TShader **>(shader);
}

// Protected members reached through pointers to members: legal C++, no
// change to glslang's objects other than the fields named.
struct SelectionAccess : glslang::TIntermSelection {
    static bool glslang::TIntermSelection::*short_circuit_field() { return &SelectionAccess::shortCircuit; }
};
struct LoopAccess : glslang::TIntermLoop {
    static glslang::TIntermTyped *glslang::TIntermLoop::*test_field() { return &LoopAccess::test; }
    static glslang::TIntermTyped *glslang::TIntermLoop::*terminal_field() { return &LoopAccess::terminal; }
};
struct IntermediateAccess : glslang::TIntermediate {
    using Graph = TGraph;
    static Graph glslang::TIntermediate::*call_graph_field() { return &IntermediateAccess::callGraph; }
};
struct SwitchAccess : glslang::TIntermSwitch {
    static glslang::TIntermTyped *glslang::TIntermSwitch::*condition_field() { return &SwitchAccess::condition; }
};

glslang::TIntermConstantUnion *bool_constant(bool value, const glslang::TSourceLoc &loc)
{
    glslang::TConstUnionArray a(1);
    a[0].setBConst(value);
    auto *c = new glslang::TIntermConstantUnion(a, glslang::TType(glslang::EbtBool, glslang::EvqConst));
    c->setLoc(loc);
    return c;
}

// Walks the tree and offers every child expression to rewrite(), which may return a replacement.
class Rewriter : public glslang::TIntermTraverser {
public:
    virtual glslang::TIntermTyped *rewrite(glslang::TIntermTyped *n) = 0;

    glslang::TIntermTyped *fix(glslang::TIntermTyped *n) { return n ? rewrite(n) : n; }
    TIntermNode *fix_node(TIntermNode *n)
    {
        glslang::TIntermTyped *t = n ? n->getAsTyped() : nullptr;
        return t ? fix(t) : n;
    }

    bool visitBinary(glslang::TVisit, glslang::TIntermBinary *n) override
    {
        n->setLeft(fix(n->getLeft()));
        n->setRight(fix(n->getRight()));
        return true;
    }
    bool visitUnary(glslang::TVisit, glslang::TIntermUnary *n) override
    {
        n->setOperand(fix(n->getOperand()));
        return true;
    }
    bool visitAggregate(glslang::TVisit, glslang::TIntermAggregate *n) override
    {
        for (auto &child : n->getSequence())
            child = fix_node(child);
        return true;
    }
    bool visitSelection(glslang::TVisit, glslang::TIntermSelection *n) override
    {
        n->setCondition(fix(n->getCondition()));
        if (n->getTrueBlock() && n->getTrueBlock()->getAsTyped())
            n->setTrueBlock(fix(n->getTrueBlock()->getAsTyped()));
        if (n->getFalseBlock() && n->getFalseBlock()->getAsTyped())
            n->setFalseBlock(fix(n->getFalseBlock()->getAsTyped()));
        return true;
    }
    bool visitLoop(glslang::TVisit, glslang::TIntermLoop *n) override
    {
        n->*LoopAccess::test_field() = fix(n->getTest());
        n->*LoopAccess::terminal_field() = fix(n->getTerminal());
        return true;
    }
    bool visitBranch(glslang::TVisit, glslang::TIntermBranch *n) override
    {
        n->setExpression(fix(n->getExpression()));
        return true;
    }
    bool visitSwitch(glslang::TVisit, glslang::TIntermSwitch *n) override
    {
        n->*SwitchAccess::condition_field() = fix(n->getCondition()->getAsTyped());
        return true;
    }
};

class ShortCircuit : public Rewriter {
public:
    int rewritten = 0;

    // `a && b` -> `a ? b : false`, `a || b` -> `a ? true : b` (scalar bools only: HLSL 2021 forbids vectors there)
    glslang::TIntermTyped *rewrite(glslang::TIntermTyped *n) override
    {
        glslang::TIntermBinary *b = n->getAsBinaryNode();
        if (b && (b->getOp() == glslang::EOpLogicalAnd || b->getOp() == glslang::EOpLogicalOr) &&
            b->getType().isScalarOrVec1() && b->getLeft()->getType().isScalarOrVec1()) {
            bool is_and = b->getOp() == glslang::EOpLogicalAnd;
            glslang::TIntermTyped *t = is_and ? b->getRight() : bool_constant(true, b->getLoc());
            glslang::TIntermTyped *f = is_and ? bool_constant(false, b->getLoc()) : b->getRight();
            auto *s = new glslang::TIntermSelection(b->getLeft(), t, f, b->getType());
            s->setLoc(b->getLoc());
            rewritten++;
            return s;
        }
        return n;
    }

    bool visitSelection(glslang::TVisit v, glslang::TIntermSelection *n) override
    {
        Rewriter::visitSelection(v, n);
        // a value-producing ?: with a scalar condition: evaluate only the chosen arm
        if (!n->getShortCircuit() && n->getCondition()->getType().isScalarOrVec1()) {
            n->*SelectionAccess::short_circuit_field() = true;
            rewritten++;
        }
        return true;
    }
};

// HLSL's wave intrinsics on 16-bit and 64-bit integers (DXC's WaveActiveSum(uint16_t), WaveReadLaneFirst(uint64_t)):
// glslang 12's tables have none, so it either refuses the argument (16-bit) or converts it to double (uint64_t:
// an FAdd, exact below 2^53 only).  isa/compile.c declares prototypes of those overloads in the preamble, which
// glslang's overload resolution prefers as exact matches; each call to one becomes the group operation glslang
// uses for the 32-bit overload, on the argument's own type.  (The prefix scans are written exclusive here;
// isa/compile.c rewrites only the inclusive ones glslang writes.)
struct WaveOverload {
    const char *name;
    glslang::TOperator op;
    const char *more_params; // after the value's
};
const WaveOverload wave_overloads[] = {
    {"WaveActiveSum", glslang::EOpSubgroupAdd, ""},
    {"WaveActiveProduct", glslang::EOpSubgroupMul, ""},
    {"WaveActiveMin", glslang::EOpSubgroupMin, ""},
    {"WaveActiveMax", glslang::EOpSubgroupMax, ""},
    {"WaveActiveBitAnd", glslang::EOpSubgroupAnd, ""},
    {"WaveActiveBitOr", glslang::EOpSubgroupOr, ""},
    {"WaveActiveBitXor", glslang::EOpSubgroupXor, ""},
    {"WavePrefixSum", glslang::EOpSubgroupExclusiveAdd, ""},
    {"WavePrefixProduct", glslang::EOpSubgroupExclusiveMul, ""},
    {"WaveReadLaneFirst", glslang::EOpSubgroupBroadcastFirst, ""},
};

// HLSL's WaveActiveAllEqual of an N-vector is a boolN, one comparison per component; glslang 12 compares the whole
// vector and gives one bool.  Where that bool feeds all() or any(), which leave no trace in the words, the call
// becomes boolN(AllEqual(v[0]), ..., AllEqual(v[N-1])).  v is read once per component, so only a value without
// side effects or wave operations is taken (a variable, a constant, indexing and swizzles of them).  Every other
// use, the boolN splat of `bool2 e = WaveActiveAllEqual(v);` included, is isa/compile.c's: it corrects the splat
// on the words (fix_hlsl_vector_all_equal) and warns about the rest.
bool reads_only(glslang::TIntermTyped *n)
{
    if (n->getAsSymbolNode() || n->getAsConstantUnion())
        return true;
    glslang::TIntermBinary *b = n->getAsBinaryNode();
    if (b && (b->getOp() == glslang::EOpIndexDirect || b->getOp() == glslang::EOpIndexIndirect ||
              b->getOp() == glslang::EOpIndexDirectStruct || b->getOp() == glslang::EOpVectorSwizzle))
        return reads_only(b->getLeft()) && (b->getOp() == glslang::EOpVectorSwizzle || reads_only(b->getRight()));
    glslang::TIntermAggregate *a = n->getAsAggregate();
    if (a && a->getOp() == glslang::EOpSequence) // a swizzle's component list
        return true;
    return false;
}

// Component k of v (a vector, or a matrix's column k), as glslang types an index.
glslang::TIntermTyped *component(glslang::TIntermTyped *v, int k, const glslang::TType &type)
{
    glslang::TConstUnionArray index(1);
    index[0].setIConst(k);
    auto *i = new glslang::TIntermConstantUnion(index, glslang::TType(glslang::EbtInt, glslang::EvqConst));
    i->setLoc(v->getLoc());
    auto *e = new glslang::TIntermBinary(glslang::EOpIndexDirect);
    e->setLeft(v);
    e->setRight(i);
    e->setType(type);
    e->setLoc(v->getLoc());
    return e;
}

// boolN(AllEqual(v[0]), ..., AllEqual(v[N-1])) of an N-vector v (2..4 components).
glslang::TIntermTyped *all_equal_of_components(glslang::TIntermTyped *v, const glslang::TSourceLoc &loc)
{
    int len = v->getType().getVectorSize();
    auto *vec = new glslang::TIntermAggregate(static_cast<glslang::TOperator>(glslang::EOpConstructBVec2 + len - 2));
    for (int k = 0; k < len; k++) {
        auto *eq = new glslang::TIntermUnary(glslang::EOpSubgroupAllEqual);
        eq->setOperand(component(v, k, glslang::TType(v->getBasicType(), glslang::EvqTemporary)));
        eq->setType(glslang::TType(glslang::EbtBool, glslang::EvqTemporary));
        eq->setLoc(loc);
        vec->getSequence().push_back(eq);
    }
    vec->setType(glslang::TType(glslang::EbtBool, glslang::EvqTemporary, len));
    vec->setLoc(loc);
    return vec;
}

glslang::TIntermTyped *all_equal_per_component(glslang::TIntermTyped *n)
{
    glslang::TIntermUnary *call = n ? n->getAsUnaryNode() : nullptr; // glslang's node for WaveActiveAllEqual
    if (!call || call->getOp() != glslang::EOpSubgroupAllEqual || !call->getType().isScalarOrVec1())
        return n;
    glslang::TIntermTyped *v = call->getOperand();
    int len = v ? v->getType().getVectorSize() : 0;
    if (!v || !v->getType().isVector() || len < 2 || len > 4 || !reads_only(v))
        return n;
    return all_equal_of_components(v, call->getLoc());
}

// HLSL's WaveActiveAllEqual of a matrix is a bool matrix, one comparison per element, which neither glslang 12
// nor SPIR-V has (no bool matrices).  isa/compile.c declares `bool WaveActiveAllEqual(TRxC value);` for each
// matrix type the kernel names; under all() or any() such a call (`n`, the all/any node) becomes the same
// reduction of every element's AllEqual: op(boolC(op(boolR(AllEqual(m[c][r]), ...)), ...)).  Any other use of
// it is left as a call to the prototype, which has no body: linking fails and isa/compile.c says why.
const char all_equal_name[] = "WaveActiveAllEqual(";

glslang::TIntermTyped *all_equal_matrix(glslang::TIntermUnary *n)
{
    glslang::TIntermAggregate *call = n->getOperand() ? n->getOperand()->getAsAggregate() : nullptr;
    if (!call || call->getOp() != glslang::EOpFunctionCall ||
        strncmp(call->getName().c_str(), all_equal_name, sizeof all_equal_name - 1) != 0 ||
        call->getSequence().size() != 1)
        return n;
    glslang::TIntermTyped *m = call->getSequence()[0]->getAsTyped();
    if (!m || !m->getType().isMatrix() || !reads_only(m))
        return n;
    const glslang::TType &t = m->getType();
    int cols = t.getMatrixCols(), rows = t.getMatrixRows();
    auto reduce = [n](glslang::TIntermTyped *bvec) {
        auto *r = new glslang::TIntermUnary(n->getOp());
        r->setOperand(bvec);
        r->setType(glslang::TType(glslang::EbtBool, glslang::EvqTemporary));
        r->setLoc(n->getLoc());
        return r;
    };
    auto *per_column = new glslang::TIntermAggregate(static_cast<glslang::TOperator>(glslang::EOpConstructBVec2 + cols - 2));
    for (int c = 0; c < cols; c++)
        per_column->getSequence().push_back(
            reduce(all_equal_of_components(component(m, c, glslang::TType(t.getBasicType(), glslang::EvqTemporary, rows)),
                                           n->getLoc())));
    per_column->setType(glslang::TType(glslang::EbtBool, glslang::EvqTemporary, cols));
    per_column->setLoc(n->getLoc());
    return reduce(per_column);
}

class AllEqualPerComponent : public Rewriter {
public:
    int rewritten = 0;
    std::set<std::string> replaced; // the matrix prototypes whose calls were all replaced
    glslang::TIntermTyped *rewrite(glslang::TIntermTyped *n) override
    {
        glslang::TIntermUnary *u = n->getAsUnaryNode();
        if (u && (u->getOp() == glslang::EOpAll || u->getOp() == glslang::EOpAny)) {
            glslang::TIntermTyped *whole = all_equal_matrix(u);
            if (whole != u) {
                replaced.insert(u->getOperand()->getAsAggregate()->getName().c_str());
                rewritten++;
                return whole;
            }
            glslang::TIntermTyped *fixed = all_equal_per_component(u->getOperand());
            if (fixed != u->getOperand())
                u->setOperand(fixed), rewritten++;
            return n;
        }
        return n;
    }
};

// HLSL's all() and any() of a scalar are the scalar as a bool (x != 0); glslang 12 writes OpAll/OpAny on it, which
// SPIR-V takes only on a bool vector (invalid SPIR-V, `all(WaveActiveAllEqual(f))` of a float1x1 included).
class ScalarAllAny : public Rewriter {
public:
    explicit ScalarAllAny(const glslang::TIntermediate *im) : im_(im) {}
    int rewritten = 0;
    glslang::TIntermTyped *rewrite(glslang::TIntermTyped *n) override
    {
        glslang::TIntermUnary *u = n->getAsUnaryNode();
        if (!u || (u->getOp() != glslang::EOpAll && u->getOp() != glslang::EOpAny) || !u->getOperand() ||
            !u->getOperand()->getType().isScalarOrVec1())
            return n;
        glslang::TIntermTyped *x = u->getOperand();
        glslang::TIntermTyped *b = x->getBasicType() == glslang::EbtBool ? x : im_->addConversion(glslang::EbtBool, x);
        if (!b)
            return n;
        rewritten++;
        return b;
    }

private:
    const glslang::TIntermediate *im_;
};

// Shader Model 6.10's GetGroupWaveCount() and GetGroupWaveIndex(), which glslang 12 lacks: DXC reads SPIR-V's
// NumSubgroups and SubgroupId built-ins for them.  isa/compile.c declares `uint NAME();` when the kernel calls one,
// and each call becomes a read of the built-in input (one variable per built-in, made here).
struct BuiltinRead {
    const char *name;
    glslang::TBuiltInVariable builtin;
    const char *variable;
};
const BuiltinRead builtin_reads[] = {
    {"GetGroupWaveCount", glslang::EbvNumSubgroups, "NumSubgroups"},
    {"GetGroupWaveIndex", glslang::EbvSubgroupID, "SubgroupId"},
};

class WaveOverloads : public Rewriter {
public:
    std::set<std::string> defined;  // functions with a body: the kernel's own, never replaced
    std::set<std::string> replaced; // the prototypes called, by glslang's mangled name
    int rewritten = 0;

    // An array indexed by NonUniformResourceIndex(i) is itself NonUniform, as GLSL's parser marks a[nonuniformEXT(i)]:
    // the access chain and the descriptor loaded through it get the decoration too.
    bool visitBinary(glslang::TVisit v, glslang::TIntermBinary *n) override
    {
        Rewriter::visitBinary(v, n);
        if (n->getOp() == glslang::EOpIndexIndirect && n->getRight()->getType().getQualifier().isNonUniform())
            n->getWritableType().getQualifier().nonUniform = true;
        return true;
    }

    glslang::TIntermTyped *rewrite(glslang::TIntermTyped *n) override
    {
        glslang::TIntermAggregate *call = n->getAsAggregate();
        if (!call || call->getOp() != glslang::EOpFunctionCall || defined.count(call->getName().c_str()))
            return n;
        std::string name = call->getName().c_str();
        name = name.substr(0, name.find('('));
        for (size_t k = 0; k < sizeof builtin_reads / sizeof builtin_reads[0]; k++)
            if (name == builtin_reads[k].name && call->getSequence().empty()) {
                glslang::TType type(glslang::EbtUint, glslang::EvqVaryingIn);
                type.getQualifier().builtIn = builtin_reads[k].builtin;
                // an id far above glslang's (a counter with the symbol-table level in bits 56 and up)
                auto *v = new glslang::TIntermSymbol((1LL << 55) + (long long)k, builtin_reads[k].variable, type);
                v->setLoc(call->getLoc());
                replaced.insert(call->getName().c_str());
                rewritten++;
                return v;
            }
        if (name == "NonUniformResourceIndex" && call->getSequence().size() == 1) {
            // glslang's nonuniformEXT(i): a copy of the index whose type says NonUniform
            glslang::TIntermTyped *index = call->getSequence()[0]->getAsTyped();
            auto *copy = new glslang::TIntermUnary(glslang::EOpCopyObject);
            copy->setOperand(index);
            glslang::TType type;
            type.shallowCopy(index->getType());
            type.getQualifier().makeTemporary();
            type.getQualifier().nonUniform = true;
            copy->setType(type);
            copy->setLoc(call->getLoc());
            replaced.insert(call->getName().c_str());
            rewritten++;
            return copy;
        }
        for (const WaveOverload &w : wave_overloads)
            if (name == w.name) {
                auto *g = new glslang::TIntermAggregate(w.op);
                g->getSequence() = call->getSequence();
                g->setType(call->getType());
                g->setLoc(call->getLoc());
                replaced.insert(call->getName().c_str());
                rewritten++;
                return g;
            }
        return n;
    }
};

// The functions still called, by glslang's mangled name.
class CalledFunctions : public glslang::TIntermTraverser {
public:
    std::set<std::string> names;
    bool visitAggregate(glslang::TVisit, glslang::TIntermAggregate *n) override
    {
        if (n->getOp() == glslang::EOpFunctionCall)
            names.insert(n->getName().c_str());
        return true;
    }
};

class Symbols : public glslang::TIntermTraverser {
public:
    std::vector<glslang::TIntermSymbol *> nodes;
    void visitSymbol(glslang::TIntermSymbol *s) override { nodes.push_back(s); }
};

// A descriptor: a buffer, a cbuffer (the $Global block of loose globals too), a texture or a sampler.
bool is_resource(const glslang::TType &type)
{
    const glslang::TQualifier &q = type.getQualifier();
    return (q.storage == glslang::EvqUniform || q.storage == glslang::EvqBuffer) && !q.isPushConstant() &&
           !q.isSpecConstant();
}

// The C interface's shader object, as glslang 12's c_interface.cpp lays it out.
struct ShaderLayout {
    glslang::TShader *shader;
    std::string preprocessed;
};

// A TShader::Includer over the C callbacks; the C result rides along as user data.
class CallbackIncluder : public glslang::TShader::Includer {
public:
    CallbackIncluder(const glsl_include_callbacks_t &callbacks, void *ctx) : callbacks_(callbacks), ctx_(ctx) {}
    IncludeResult *includeLocal(const char *header, const char *includer, size_t depth) override
    {
        return wrap(callbacks_.include_local ? callbacks_.include_local(ctx_, header, includer, depth) : nullptr);
    }
    IncludeResult *includeSystem(const char *header, const char *includer, size_t depth) override
    {
        return wrap(callbacks_.include_system ? callbacks_.include_system(ctx_, header, includer, depth) : nullptr);
    }
    void releaseInclude(IncludeResult *result) override
    {
        if (!result)
            return;
        if (callbacks_.free_include_result)
            callbacks_.free_include_result(ctx_, static_cast<glsl_include_result_t *>(result->userData));
        delete result;
    }

private:
    IncludeResult *wrap(glsl_include_result_t *r)
    {
        if (!r)
            return nullptr;
        return new IncludeResult(r->header_name ? r->header_name : "", r->header_data, r->header_length, r);
    }
    glsl_include_callbacks_t callbacks_;
    void *ctx_;
};

} // namespace

// glslang_shader_parse with the caller's include callbacks (glslang 12 ignores them), on the kernel's own text.
// The C interface would preprocess first and then parse the preprocessed text with the preamble again, so
// every define (the case's, DXC's type names) would be expanded twice; and errors in an #include'd file
// would be numbered in the preprocessed text.  One parse with the includer expands each once and names the
// included file in its messages.
extern "C" int isa_glslang_parse(glslang_shader_t *shader, const glslang_input_t *input,
                                 const glsl_include_callbacks_t *callbacks, void *ctx)
{
    ShaderLayout *s = reinterpret_cast<ShaderLayout *>(shader);
    CallbackIncluder includer(*callbacks, ctx);
    // glslang_profile_t and glslang_messages_t use EProfile's and EShMessages's bit values
    return s->shader->parse(reinterpret_cast<const TBuiltInResource *>(input->resource), input->default_version,
                            static_cast<EProfile>(input->default_profile),
                            input->force_default_version_and_profile != 0, input->forward_compatible != 0,
                            static_cast<EShMessages>(input->messages), includer);
}

// glslang 12's HLSL front end declares read-write buffers BufferBlock (Uniform storage class) even when it
// targets SPIR-V 1.4+, where that decoration is gone (glslangValidator writes such invalid modules too): ask
// its intermediate for the StorageBuffer class, as its GLSL front end does.  Call before parsing.
extern "C" void isa_glslang_use_storage_buffer(glslang_shader_t *shader)
{
    tshader_of(shader)->getIntermediate()->setUseStorageBuffer();
}

extern "C" void isa_glslang_set_entry_point(glslang_shader_t *shader, const char *name)
{
    glslang::TShader *tshader = tshader_of(shader);
    tshader->setEntryPoint(name);
    tshader->setSourceEntryPoint(name);
}

// DXC's rule for a resource declared with neither register() nor [[vk::binding]]: the lowest binding of its set
// (set 0 unless a space says otherwise) that no explicit binding and no earlier such resource took, in
// declaration order, whether or not the kernel uses it.  glslang 12 writes binding 0 for all of them, and its own
// automatic mapping numbers only the resources the entry point uses.  The linker objects list every global in
// declaration order; the binding is written on each node of the variable, since GlslangToSpv decorates the
// variable from whichever node it meets first.  Call after parsing, before linking.
extern "C" void isa_glslang_hlsl_dxc_bindings(glslang_shader_t *shader)
{
    glslang::TIntermediate *im = tshader_of(shader)->getIntermediate();
    glslang::TIntermAggregate *root = im && im->getTreeRoot() ? im->getTreeRoot()->getAsAggregate() : nullptr;
    if (!root)
        return;
    std::map<unsigned, std::set<unsigned>> taken;
    std::vector<glslang::TIntermSymbol *> unbound;
    for (TIntermNode *n : root->getSequence()) {
        glslang::TIntermAggregate *linker = n ? n->getAsAggregate() : nullptr;
        if (!linker || linker->getOp() != glslang::EOpLinkerObjects)
            continue;
        for (TIntermNode *o : linker->getSequence()) {
            glslang::TIntermSymbol *sym = o ? o->getAsSymbolNode() : nullptr;
            if (!sym || !is_resource(sym->getType()))
                continue;
            const glslang::TQualifier &q = sym->getType().getQualifier();
            if (q.hasBinding())
                taken[q.hasSet() ? q.layoutSet : 0].insert(q.layoutBinding);
            else
                unbound.push_back(sym);
        }
    }
    std::map<long long, unsigned> binding;
    for (glslang::TIntermSymbol *sym : unbound) {
        const glslang::TQualifier &q = sym->getType().getQualifier();
        std::set<unsigned> &used = taken[q.hasSet() ? q.layoutSet : 0];
        unsigned b = 0;
        while (used.count(b))
            b++;
        used.insert(b);
        binding[sym->getId()] = b;
    }
    if (binding.empty())
        return;
    Symbols all;
    root->traverse(&all);
    for (glslang::TIntermSymbol *sym : all.nodes) {
        auto it = binding.find(sym->getId());
        if (it != binding.end())
            sym->getWritableType().getQualifier().layoutBinding = it->second;
    }
}

// Call after glslang_shader_parse succeeded, before linking: the new nodes go
// into the shader's pool, which parsing left as this thread's allocator.
extern "C" int isa_glslang_hlsl_short_circuit(glslang_shader_t *shader)
{
    glslang::TIntermediate *im = tshader_of(shader)->getIntermediate();
    if (!im || !im->getTreeRoot())
        return 0;
    ShortCircuit sc;
    im->setTreeRoot(sc.fix_node(im->getTreeRoot()));
    im->getTreeRoot()->traverse(&sc);
    return sc.rewritten;
}

// The i-th wave intrinsic WaveOverloads replaces and the parameters after its value (for isa/compile.c's
// prototypes); NULL past the last.
extern "C" const char *isa_glslang_hlsl_wave_overload(size_t i, const char **more_params)
{
    if (i >= sizeof wave_overloads / sizeof wave_overloads[0])
        return nullptr;
    *more_params = wave_overloads[i].more_params;
    return wave_overloads[i].name;
}

// The i-th built-in read WaveOverloads replaces (isa/compile.c declares it); NULL past the last.
extern "C" const char *isa_glslang_hlsl_builtin_read(size_t i)
{
    return i < sizeof builtin_reads / sizeof builtin_reads[0] ? builtin_reads[i].name : nullptr;
}

// The calls to isa/compile.c's wave-intrinsic prototypes become group operations (WaveOverloads above).  Call
// after parsing, before linking.
extern "C" int isa_glslang_hlsl_wave_overloads(glslang_shader_t *shader)
{
    glslang::TIntermediate *im = tshader_of(shader)->getIntermediate();
    glslang::TIntermAggregate *root = im && im->getTreeRoot() ? im->getTreeRoot()->getAsAggregate() : nullptr;
    if (!root)
        return 0;
    WaveOverloads wo;
    for (TIntermNode *n : root->getSequence()) {
        glslang::TIntermAggregate *f = n ? n->getAsAggregate() : nullptr;
        if (f && f->getOp() == glslang::EOpFunction)
            wo.defined.insert(f->getName().c_str());
    }
    root->traverse(&wo);
    AllEqualPerComponent ae;
    root->traverse(&ae);
    ScalarAllAny scalar(im);
    root->traverse(&scalar);
    // a matrix WaveActiveAllEqual still called outside all()/any() keeps its edge: linking then fails on it
    CalledFunctions left;
    root->traverse(&left);
    for (const std::string &name : ae.replaced)
        if (!left.names.count(name))
            wo.replaced.insert(name);
    // the calls are gone: so are their edges, or linking would look for the prototypes' bodies
    (im->*IntermediateAccess::call_graph_field()).remove_if([&wo](const glslang::TCall &c) {
        return wo.replaced.count(c.callee.c_str()) != 0;
    });
    return wo.rewritten + ae.rewritten + scalar.rewritten;
}

namespace {

// Whether the tree takes derivatives: ddx/ddy/fwidth, or a sample with an implicit level of detail (Sample,
// SampleBias, SampleCmp, CalculateLevelOfDetail, before or after glslang decomposes HLSL's methods).
class TakesDerivatives : public glslang::TIntermTraverser {
public:
    bool found = false;
    static bool derivative_op(glslang::TOperator op)
    {
        switch (op) {
        case glslang::EOpDPdx: case glslang::EOpDPdy: case glslang::EOpFwidth: case glslang::EOpDPdxFine:
        case glslang::EOpDPdyFine: case glslang::EOpFwidthFine: case glslang::EOpDPdxCoarse:
        case glslang::EOpDPdyCoarse: case glslang::EOpFwidthCoarse:
        case glslang::EOpTexture: case glslang::EOpTextureProj: case glslang::EOpTextureOffset:
        case glslang::EOpTextureProjOffset: case glslang::EOpTextureClamp: case glslang::EOpTextureOffsetClamp:
        case glslang::EOpTextureQueryLod: case glslang::EOpSparseTexture: case glslang::EOpSparseTextureOffset:
        case glslang::EOpSparseTextureClamp: case glslang::EOpSparseTextureOffsetClamp: case glslang::EOpTextureBias:
        case glslang::EOpMethodSample: case glslang::EOpMethodSampleBias: case glslang::EOpMethodSampleCmp:
        case glslang::EOpMethodCalculateLevelOfDetail: case glslang::EOpMethodCalculateLevelOfDetailUnclamped:
            return true;
        default:
            return false;
        }
    }
    bool visitAggregate(glslang::TVisit, glslang::TIntermAggregate *n) override
    {
        found = found || derivative_op(n->getOp());
        return !found;
    }
    bool visitUnary(glslang::TVisit, glslang::TIntermUnary *n) override
    {
        found = found || derivative_op(n->getOp());
        return !found;
    }
};

} // namespace

// A compute kernel that takes derivatives needs a derivative group execution mode, which DXC adds
// (SpirvEmitter::addDerivativeGroupExecutionMode) and glslang 12's HLSL front end does not: without one its SPIR-V
// generator even turns Sample into a sample at level 0, and SampleBias into invalid SPIR-V.  Chosen as DXC chooses
// it from numthreads (Shader Model 6.6 derivatives): linear when X is a multiple of 4 and Y and Z are 1, else
// quads, which need X and Y even; glslang then writes the mode, its capability and
// SPV_NV_compute_shader_derivatives (DXC's default is the KHR extension, the same enumerants).  Returns 0 when
// nothing was needed, 1 when a mode was set, -1 when numthreads allows neither (*x, *y, *z its size).  Call after
// parsing, before linking.
extern "C" int isa_glslang_hlsl_derivative_group(glslang_shader_t *shader, unsigned *x, unsigned *y, unsigned *z)
{
    glslang::TIntermediate *im = tshader_of(shader)->getIntermediate();
    if (!im || !im->getTreeRoot() || im->getStage() != EShLangCompute ||
        im->getLayoutDerivativeModeNone() != glslang::LayoutDerivativeNone)
        return 0;
    TakesDerivatives td;
    im->getTreeRoot()->traverse(&td);
    if (!td.found)
        return 0;
    *x = im->getLocalSize(0), *y = im->getLocalSize(1), *z = im->getLocalSize(2);
    if (*x % 4 == 0 && *y == 1 && *z == 1)
        im->setLayoutDerivativeMode(glslang::LayoutDerivativeGroupLinear);
    else if (*x % 2 == 0 && *y % 2 == 0)
        im->setLayoutDerivativeMode(glslang::LayoutDerivativeGroupQuads);
    else
        return -1;
    return 1;
}
