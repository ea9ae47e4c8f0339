/*
 * backend/vulkan_internal.h — what backend/vulkan.c shares with the other
 * files of the backend (backend/probe.c) and no one else: the Vulkan handle
 * of a listed physical device, its usable API version and its extensions.
 * Outside backend/ use backend.h, which keeps Vulkan's headers out.
 */
#ifndef WAVELAB_VULKAN_INTERNAL_H
#define WAVELAB_VULKAN_INTERNAL_H

#include <volk.h>

#include "backend/backend.h"

/* Device `index` of ctx: its physical device and API version (min of device and instance, no patch number).
 * Returns 0 for a bad index. */
int vkb_internal_device(const vkb_context *ctx, int index, VkPhysicalDevice *physical, uint32_t *api);

/* 1 when device `index` lists extension `name`. */
int vkb_internal_has_extension(const vkb_context *ctx, int index, const char *name);

#endif
