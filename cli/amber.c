/*
 * cli/amber.c — `wavelab amber SCRIPT.amber [options]`: an Amber
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
#include "cli/options.h"
#include "run/run.h"
#include "sim/memmodel.h"

enum { EXIT_CANNOT_RUN = 3 };

int cli_cmd_amber(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_amber, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    const char *path = o.nargs ? o.args[0] : NULL;
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
    run_options opt = cli_run_options(&o);
    /* --machine does what it does for every command (run_memory_open): the preset's default wave size, its model */
    if (o.machine && cli_memory_open(o.machine, -1, 1, c, &opt) != 0) {
        case_destroy(c);
        return RUN_EXIT_BAD_INPUT;
    }
    uint32_t w = run_wave_size(c, opt.wave_size);
    if (!case_wave_applies(c, w, err, sizeof err)) {
        printf("SKIP  %s (wave %u): %s\n", path, w, err);
        mem_model_destroy(opt.memory);
        case_destroy(c);
        return EXIT_CANNOT_RUN;
    }
    opt.wave_size = w;
    run_output out;
    int rc = run_case_sim(c, &opt, &out, err, sizeof err);
    if (out.warnings[0])
        fputs(out.warnings, stderr);
    if (rc == RUN_EXIT_BAD_INPUT) {
        fprintf(stderr, "%s\n", err);
    } else if (rc == RUN_EXIT_FAIL) {
        char fault[1024];
        run_fault_text(&out, fault, sizeof fault);
        printf("FAIL  %s (wave %u): pass %d (%s) faulted: %s\n", path, w, out.pass, case_dispatch_name(c, out.pass),
               fault);
    } else {
        int failures = run_check_expects(c, out.data, o.quiet ? NULL : stdout);
        if (failures)
            printf("FAIL  %s (wave %u): %d of %d expectations failed\n", path, w, failures, c->expect_count);
        else
            printf("PASS  %s (wave %u): %d passes, %d expectations\n", path, w, case_dispatch_total(c), c->expect_count);
        rc = failures ? RUN_EXIT_FAIL : RUN_EXIT_OK;
    }
    run_output_free(&out);
    mem_model_destroy(opt.memory);
    case_destroy(c);
    return rc;
}
