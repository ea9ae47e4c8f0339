/*
 * backend/volk_impl.c — the one translation unit that holds volk's
 * implementation (its function pointers and the loader lookup), as volk's
 * header-only mode describes.  wavelab never links libvulkan: volkInitialize()
 * opens the loader at run time, and failing to do so means "no Vulkan here".
 */
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#endif
#define VOLK_IMPLEMENTATION
#include <volk.h>
