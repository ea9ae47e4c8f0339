/*
 * case/amber.h — Amber scripts (the script format of the Vulkan CTS and of many
 * driver and compiler test suites) read into a case: the compute subset
 * (docs/amber.md) becomes bindings (one per BUFFER, named), passes (one per
 * RUN, each binding its pipeline's buffers by name), and expectations.  So a
 * script runs wherever a case runs: the simulator at any wave size, a device
 * through `wavelab check`, `wavelab test` beside the JSON cases.  case_load
 * reads a file whose name ends in ".amber" through here.
 */
#ifndef WAVELAB_AMBER_H
#define WAVELAB_AMBER_H

#include <stddef.h>

#include "case/case.h"

/*
 * Reads the script `text` (`len` bytes; `path` names it in messages and
 * anchors relative paths).  On success *out owns a new case.  On failure err
 * holds one line, "PATH:LINE: problem", and the status says which kind:
 * CASE_ERR_FIELD for a script that is not well formed (exit 2),
 * CASE_ERR_UNSUPPORTED for a well-formed one that asks for something outside
 * the subset or that the simulator does not model (a graphics pipeline, an
 * image, a DEVICE_FEATURE: exit 3), CASE_ERR_NOMEM.
 */
case_status amber_parse(const char *text, size_t len, const char *path, wl_case **out, char *err, size_t err_size);

/* 1 when `path` names an Amber script (ends in ".amber"). */
int amber_is_script(const char *path);

#endif
