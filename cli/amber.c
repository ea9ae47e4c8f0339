/*
 * cli/amber.c — `wavelab amber SCRIPT.amber [--wave N] [--quiet]`: an Amber
 * script on the simulator.  case_load reads the script (case/amber.h); this
 * file only parses the arguments, runs the case and prints.  `wavelab check
 * SCRIPT.amber` runs the same case on a device.
 *
 * Exit codes: 0 every EXPECT holds, 1 a fault or a failed EXPECT, 2 a
 * malformed script or kernel, 3 a script outside the subset (docs/amber.md).
 */
#include <stdio.h>
#include <string.h>

#include "case/amber.h"
#include "case/case.h"
#include "cli/cli.h"
#include "run/run.h"

enum { EXIT_CANNOT_RUN = 3 };

int cli_cmd_amber(int argc, char **argv)
{
    const char *path = NULL;
    uint32_t wave = 0;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--wave") == 0 && i + 1 < argc) {
            if (!cli_wave_option("amber", argv[++i], &wave))
                return RUN_EXIT_BAD_INPUT;
        } else if (strcmp(argv[i], "--quiet") == 0) {
            quiet = 1;
        } else if (argv[i][0] != '-' && !path) {
            path = argv[i];
        } else {
            fprintf(stderr, "wavelab amber: unexpected argument \"%s\" (wavelab amber SCRIPT.amber [--wave N] "
                    "[--quiet])\n", argv[i]);
            return RUN_EXIT_BAD_INPUT;
        }
    }
    if (!path) {
        fprintf(stderr, "wavelab amber: expected a script (wavelab amber SCRIPT.amber [--wave N] [--quiet])\n");
        return RUN_EXIT_BAD_INPUT;
    }
    if (!amber_is_script(path)) {
        fprintf(stderr, "wavelab amber: %s: an Amber script's name ends in .amber\n", path);
        return RUN_EXIT_BAD_INPUT;
    }
    char err[4096];
    wl_case *c = NULL;
    case_status st = case_load(path, &c, err, sizeof err);
    if (st == CASE_ERR_UNSUPPORTED) {
        printf("SKIP  %s\n", err);
        return EXIT_CANNOT_RUN;
    }
    if (st != CASE_OK) {
        fprintf(stderr, "%s\n", err);
        return RUN_EXIT_BAD_INPUT;
    }
    uint32_t w = run_wave_size(c, wave);
    if (!case_wave_applies(c, w, err, sizeof err)) {
        printf("SKIP  %s (wave %u): %s\n", path, w, err);
        case_destroy(c);
        return EXIT_CANNOT_RUN;
    }
    run_options opt = {.wave_size = w};
    run_output out;
    int rc = run_case_sim(c, &opt, &out, err, sizeof err);
    if (out.warnings[0])
        fputs(out.warnings, stderr);
    if (rc == RUN_EXIT_BAD_INPUT) {
        fprintf(stderr, "%s\n", err);
    } else if (rc == RUN_EXIT_FAIL) {
        printf("FAIL  %s (wave %u): pass %d (%s) faulted: %s\n", path, w, out.pass, case_dispatch_name(c, out.pass),
               err);
    } else {
        int failures = run_check_expects(c, out.data, quiet ? NULL : stdout);
        if (failures)
            printf("FAIL  %s (wave %u): %d of %d expectations failed\n", path, w, failures, c->expect_count);
        else
            printf("PASS  %s (wave %u): %d passes, %d expectations\n", path, w, case_dispatch_total(c), c->expect_count);
        rc = failures ? RUN_EXIT_FAIL : RUN_EXIT_OK;
    }
    run_output_free(&out);
    case_destroy(c);
    return rc;
}
