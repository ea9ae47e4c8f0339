/*
 * cli/trace.c — `wavelab trace CASE`: every instruction one wave executed, in
 * order, with its exec mask drawn as lanes (`##..#...`, lane 0 first), the
 * values it wrote in each lane, the lanes each branch sent each way, and the
 * iterations of each loop.  For people learning how a wave runs: step through
 * it and watch the mask shrink and the lanes reconverge.
 *
 * Built on the simulator's step hook (sim_config.step): the hook is called
 * before each instruction of the followed wave with the wave's registers as
 * the earlier instructions left them, so an instruction's results are read
 * at the next call.  The output is bounded (--limit); a note says where it
 * stops and how much was left out.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "case/case.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "run/run.h"
#include "sim/memmodel.h"

#define TRACE_DEFAULT_LIMIT 400
#define TRACE_LANES_LISTED 8 /* text: lanes listed per written register before "…" */

typedef struct trace_state {
    const isa_program *prog;   /* the program the run executes (from *run, at the first step) */
    const run_output *run;
    FILE *out;
    cJSON *steps;              /* --json: the array of steps; else NULL */
    uint32_t lo, hi;           /* shown range (of lines or pcs) */
    int by_line;               /* the range is of source lines (--lines), else of pcs */
    uint64_t limit;            /* steps shown at most */
    uint64_t executed;         /* instructions of the wave so far */
    uint64_t shown;
    uint32_t *loop_iteration;  /* per pc of a LOOP: the iteration now running (1 = first) */
    uint8_t *reg_type;         /* per register: the isa_type it was last written with (moves are untyped) */
    int failed;                /* out of memory at the first step: nothing is traced */
    const char *path;
    uint32_t group[3], wave_index;
    /* the previous instruction, finished when the next call shows what it wrote */
    int pending;
    uint32_t pc;
    sim_mask exec, live;
    uint32_t wave_size;
    char exec_before[SIM_MAX_WAVE + 1];
} trace_state;

static void lanes_picture(sim_mask mask, uint32_t w, char *buf)
{
    for (uint32_t l = 0; l < w; l++)
        buf[l] = (mask >> l) & 1 ? '#' : '.';
    buf[w] = 0;
}

/* The lowest lane of a non-empty mask, and the number of lanes in one. */
static int mask_first(sim_mask m)
{
    uint64_t lo = (uint64_t)m, hi = (uint64_t)(m >> 64);
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(hi);
}

static int mask_count(sim_mask m)
{
    return __builtin_popcountll((uint64_t)m) + __builtin_popcountll((uint64_t)(m >> 64));
}

static isa_type written_type(const trace_state *t, const isa_inst *in)
{
    isa_op op = (isa_op)in->op;
    /* phi copies and moves carry raw 64-bit slots: show them as the value they copy was written */
    if ((op == ISA_OP_MOV || op == ISA_OP_MOVM) && (in->type == ISA_TYPE_U64 || in->type == ISA_TYPE_NONE))
        return in->a < t->prog->reg_count && t->reg_type[in->a] ? (isa_type)t->reg_type[in->a] : ISA_TYPE_U64;
    switch (isa_op_result(op)) {
    case ISA_RESULT_BOOL: return ISA_TYPE_BOOL;
    case ISA_RESULT_U32: return ISA_TYPE_U32;
    case ISA_RESULT_TYPED: break;
    }
    return (isa_type)in->type;
}

static void reg_name(const isa_program *p, uint32_t r, char *buf, size_t size)
{
    if (p->allocated && p->reg_file && r < p->reg_count)
        snprintf(buf, size, "%s%u", p->reg_file[r] == ISA_FILE_SGPR ? "s" : "v", p->reg_number[r]);
    else
        snprintf(buf, size, "v%u", r);
}

static void value_text(isa_type t, uint64_t v, char *buf, size_t size)
{
    switch (t) {
    case ISA_TYPE_BOOL: snprintf(buf, size, "%s", v & 1 ? "true" : "false"); break;
    case ISA_TYPE_I8: snprintf(buf, size, "%d", (int8_t)v); break;
    case ISA_TYPE_I16: snprintf(buf, size, "%d", (int16_t)v); break;
    case ISA_TYPE_I32: snprintf(buf, size, "%d", (int32_t)v); break;
    case ISA_TYPE_I64: snprintf(buf, size, "%" PRId64, (int64_t)v); break;
    case ISA_TYPE_U8: snprintf(buf, size, "%u", (unsigned)(uint8_t)v); break;
    case ISA_TYPE_U16: snprintf(buf, size, "%u", (unsigned)(uint16_t)v); break;
    case ISA_TYPE_U32: snprintf(buf, size, "%" PRIu32, (uint32_t)v); break;
    case ISA_TYPE_F16: {
        uint16_t u = (uint16_t)v;
        _Float16 h;
        memcpy(&h, &u, 2);
        snprintf(buf, size, "%g", (double)h);
        break;
    }
    case ISA_TYPE_F32: {
        uint32_t u = (uint32_t)v;
        float f;
        memcpy(&f, &u, 4);
        snprintf(buf, size, "%g", (double)f);
        break;
    }
    case ISA_TYPE_F64: {
        double d;
        memcpy(&d, &v, 8);
        snprintf(buf, size, "%g", d);
        break;
    }
    default: snprintf(buf, size, "%" PRIu64, v); break;
    }
}

static cJSON *value_json(isa_type t, uint64_t v)
{
    char buf[64];
    if (t == ISA_TYPE_BOOL)
        return cJSON_CreateBool(v & 1);
    value_text(t, v, buf, sizeof buf);
    double d = strtod(buf, NULL);
    /* integers beyond 2^53 and non-finite floats stay strings: JSON numbers cannot hold them exactly */
    if (!isfinite(d) || fabs(d) > 9007199254740992.0)
        return cJSON_CreateString(buf);
    return cJSON_CreateNumber(d);
}

static int shown_here(const trace_state *t, const isa_inst *in, uint32_t pc)
{
    uint32_t key = t->by_line ? in->line : pc;
    return key >= t->lo && key <= t->hi;
}

/* The values the pending instruction wrote, read from the wave's registers now. */
static void finish_writes(trace_state *t, const isa_inst *in, const uint64_t *regs, const sim_mask *masks, cJSON *js)
{
    isa_span reads[6], writes[2];
    int nr = 0, nw = 0;
    isa_inst_regs(in, reads, &nr, writes, &nw);
    /* scalar ALU writes every live lane; everything else the lanes of exec */
    sim_mask lanes = in->cls == ISA_CLASS_SALU ? t->live : t->exec;
    if (in->op == ISA_OP_MOVM)
        lanes &= masks[in->b];
    isa_type type = written_type(t, in);
    uint32_t W = t->wave_size;
    cJSON *jw = js ? cJSON_AddArrayToObject(js, "writes") : NULL;
    for (int s = 0; s < nw; s++)
        for (uint32_t r = writes[s].first; r < writes[s].first + writes[s].count; r++) {
            if (r == ISA_NO_REG || r >= t->prog->reg_count)
                continue;
            const uint64_t *v = regs + (size_t)r * W;
            char name[24];
            reg_name(t->prog, r, name, sizeof name);

            if (jw) {
                cJSON *o = cJSON_CreateObject();
                cJSON_AddStringToObject(o, "reg", name);
                cJSON *vals = cJSON_AddArrayToObject(o, "values");
                for (uint32_t l = 0; l < W; l++)
                    cJSON_AddItemToArray(vals, (lanes >> l) & 1 ? value_json(type, v[l]) : cJSON_CreateNull());
                cJSON_AddItemToArray(jw, o);
                continue;
            }
            if (!lanes)
                continue;
            if (type == ISA_TYPE_BOOL) {
                char pic[SIM_MAX_WAVE + 1];
                sim_mask m = 0;
                for (uint32_t l = 0; l < W; l++)
                    m |= (sim_mask)((lanes >> l) & 1 && (v[l] & 1)) << l;
                lanes_picture(m, W, pic);
                fprintf(t->out, "%s%s = %s (true lanes)", s || r != writes[0].first ? "; " : "", name, pic);
                continue;
            }
            int same = 1, first = mask_first(lanes);
            for (uint32_t l = 0; l < W; l++)
                if ((lanes >> l) & 1 && v[l] != v[first])
                    same = 0;
            char val[64];
            fprintf(t->out, "%s%s =", s || r != writes[0].first ? "; " : "", name);
            if (same) {
                value_text(type, v[first], val, sizeof val);
                fprintf(t->out, " %s in all %d lanes", val, mask_count(lanes));
                continue;
            }
            int listed = 0;
            for (uint32_t l = 0; l < W; l++) {
                if (!((lanes >> l) & 1))
                    continue;
                if (listed == TRACE_LANES_LISTED) {
                    fprintf(t->out, " … (%d more lanes)", mask_count(lanes) - listed);
                    break;
                }
                value_text(type, v[l], val, sizeof val);
                fprintf(t->out, " lane%u:%s", l, val);
                listed++;
            }
        }
}

/* Completes the pending instruction now that the wave's state after it is known
 * (regs/masks NULL: the run stopped, nothing more can be read). */
static void finish_pending(trace_state *t, uint32_t next_pc, uint64_t next_exec, const uint64_t *regs,
                           const sim_mask *masks)
{
    if (!t->pending)
        return;
    t->pending = 0;
    const isa_inst *in = &t->prog->code[t->pc];
    isa_op op = (isa_op)in->op;
    uint32_t W = t->wave_size;
    int show = shown_here(t, in, t->pc) && t->shown < t->limit;
    char pic[SIM_MAX_WAVE + 1], text[256];
    cJSON *js = NULL;

    /* what each register now holds, and loop iterations, are followed whether or not the step is shown */
    if (regs) {
        isa_span reads[6], writes[2];
        int nr = 0, nw = 0;
        isa_inst_regs(in, reads, &nr, writes, &nw);
        isa_type wt = written_type(t, in);
        for (int k = 0; k < nw; k++)
            for (uint32_t r = writes[k].first; r < writes[k].first + writes[k].count && r < t->prog->reg_count; r++)
                t->reg_type[r] = (uint8_t)wt;
    }
    int loop_again = -1;
    /* a loop's back edge may be a `jump` standing just before the loop's `loop` (isa/lean.c): one counter for both */
    uint32_t loop_at = op == ISA_OP_JUMP ? t->pc + 1 : t->pc;
    if ((op == ISA_OP_LOOP || op == ISA_OP_JUMP) && regs && loop_at < t->prog->code_count) {
        loop_again = op == ISA_OP_JUMP || (next_pc == (uint32_t)in->imm && next_pc != t->pc + 1);
        t->loop_iteration[loop_at] = loop_again ? t->loop_iteration[loop_at] + 1 : 1;
    }
    if (show) {
        t->shown++;
        isa_inst_format(t->prog, in, text, sizeof text);
        if (t->steps) {
            js = cJSON_CreateObject();
            cJSON_AddNumberToObject(js, "step", (double)(t->executed - 1));
            cJSON_AddNumberToObject(js, "pc", t->pc);
            cJSON_AddNumberToObject(js, "line", in->line);
            cJSON_AddStringToObject(js, "op", isa_op_name(op));
            cJSON_AddStringToObject(js, "class", isa_class_name((isa_class)in->cls));
            cJSON_AddStringToObject(js, "text", text);
            cJSON_AddStringToObject(js, "exec", t->exec_before);
        } else {
            char line[16] = "    -";
            if (in->line)
                snprintf(line, sizeof line, "%5u", in->line);
            fprintf(t->out, "%5u %s  %s  %-52s  ", t->pc, line, t->exec_before, text);
        }
    }
    if (show && regs) {
        sim_mask m = 0;
        const uint64_t *A = in->a < t->prog->reg_count ? regs + (size_t)in->a * W : NULL;
        switch (op) {
        case ISA_OP_BRANCH: case ISA_OP_BRANCH_CMP: case ISA_OP_BRANCH_IF: /* fused: the comparison it wrote decides */
            if (op == ISA_OP_BRANCH_CMP || (op == ISA_OP_BRANCH_IF && in->imm2))
                A = in->d < t->prog->reg_count ? regs + (size_t)in->d * W : NULL;
            for (uint32_t l = 0; A && l < W; l++)
                m |= (sim_mask)(A[l] & 1) << l;
            {
                char taken[SIM_MAX_WAVE + 1], not_taken[SIM_MAX_WAVE + 1];
                lanes_picture(t->exec & m, W, taken);
                lanes_picture(t->exec & ~m, W, not_taken);
                if (js) {
                    cJSON *b = cJSON_AddObjectToObject(js, "branch");
                    cJSON_AddStringToObject(b, "taken", taken);
                    cJSON_AddStringToObject(b, "not_taken", not_taken);
                } else {
                    fprintf(t->out, "true: %s  false: %s", taken, not_taken);
                }
            }
            break;
        case ISA_OP_MASK_COND: case ISA_OP_MASK_CASE: case ISA_OP_MASK_EXEC:
            lanes_picture(masks[in->d], W, pic);
            if (js)
                cJSON_AddStringToObject(cJSON_AddObjectToObject(js, "edge"), "lanes", pic);
            else
                fprintf(t->out, "edge lanes %s", pic);
            break;
        case ISA_OP_MASK_OR: case ISA_OP_MASK_ANDN: case ISA_OP_JOIN: {
            lanes_picture(masks[in->d], W, pic);
            char name[16];
            snprintf(name, sizeof name, "m%u", in->d);
            if (js) {
                cJSON *b = cJSON_AddObjectToObject(js, "mask");
                cJSON_AddStringToObject(b, "name", name);
                cJSON_AddStringToObject(b, "lanes", pic);
            } else {
                fprintf(t->out, "%s = %s", name, pic);
            }
            break;
        }
        case ISA_OP_BLOCK:
            /* BLOCK sets exec to the block's lanes: the next instruction runs with them (0: skipped) */
            lanes_picture(next_exec, W, pic);
            if (js) {
                cJSON *b = cJSON_AddObjectToObject(js, "block");
                cJSON_AddStringToObject(b, "exec", pic);
                cJSON_AddBoolToObject(b, "skipped", next_exec == 0);
            } else if (next_exec == 0) {
                fprintf(t->out, "no lanes: skipped to pc %u", next_pc);
            } else {
                fprintf(t->out, "exec = %s", pic);
            }
            break;
        case ISA_OP_LOOP: case ISA_OP_JUMP:
            if (loop_again < 0)
                break;
            if (js) {
                cJSON *b = cJSON_AddObjectToObject(js, "loop");
                cJSON_AddBoolToObject(b, "again", loop_again);
                cJSON_AddNumberToObject(b, "iteration", t->loop_iteration[loop_at]);
            } else if (loop_again) {
                fprintf(t->out, "lanes wait at the header: iteration %u", t->loop_iteration[loop_at]);
            } else {
                fprintf(t->out, "no lane waits: the loop is done");
            }
            break;
        case ISA_OP_BARRIER:
            if (js)
                cJSON_AddBoolToObject(js, "barrier", 1);
            else
                fprintf(t->out, "waits until every wave of the workgroup arrives");
            break;
        default:
            finish_writes(t, in, regs, masks, js);
            break;
        }
    } else if (show && !js) {
        fprintf(t->out, "%s", op == ISA_OP_END ? "the wave ends" : "(the run stopped here)");
    }
    if (show && js)
        cJSON_AddItemToArray(t->steps, js);
    else if (show)
        fputc('\n', t->out);
    /* a loop that goes round again gets a separator line where its body is shown */
    if (!t->steps && loop_again == 1 && t->shown < t->limit) {
        uint32_t a = t->by_line ? t->prog->code[in->imm].line : (uint32_t)in->imm;
        uint32_t b = t->by_line ? in->line : t->pc;
        if (a > b) {
            uint32_t x = a;
            a = b, b = x;
        }
        if (!(b < t->lo || a > t->hi))
            fprintf(t->out, "      ---- loop (pc %" PRId64 "..%u) iteration %u ----\n", in->imm, t->pc,
                    t->loop_iteration[loop_at]);
    }
}

static void print_header(const trace_state *t, uint32_t W)
{
    const isa_program *p = t->prog;
    uint64_t local = (uint64_t)p->local_size[0] * p->local_size[1] * p->local_size[2];
    uint32_t first = t->wave_index * W;
    uint64_t last = local - 1 < (uint64_t)first + W - 1 ? local - 1 : (uint64_t)first + W - 1;
    fprintf(t->out,
            "trace of %s: workgroup (%u,%u,%u), wave %u of %" PRIu64 ", wave size %u (invocations %u..%" PRIu64
            " of the workgroup)\n"
            "exec: one character per lane, lane 0 first: '#' runs the instruction, '.' does not.\n"
            "Results are shown for the lanes that ran the instruction (scalar ALU: every live lane).\n\n"
            "   pc  line  %-*s  %-52s  effect\n",
            t->path, t->group[0], t->group[1], t->group[2], t->wave_index, (local + W - 1) / W, W, first, last,
            (int)W, "exec", "instruction");
}

static void trace_step(void *user, const sim_step *s)
{
    trace_state *t = user;
    if (t->failed)
        return;
    if (!t->prog) {
        /* first step: run_case_sim has lowered the program by now */
        t->prog = t->run->prog;
        t->loop_iteration = malloc((t->prog->code_count ? t->prog->code_count : 1) * sizeof *t->loop_iteration);
        t->reg_type = calloc(t->prog->reg_count ? t->prog->reg_count : 1, 1);
        if (!t->loop_iteration || !t->reg_type) {
            t->failed = 1;
            return;
        }
        for (uint32_t pc = 0; pc < t->prog->code_count; pc++)
            t->loop_iteration[pc] = 1;
        if (!t->steps)
            print_header(t, s->wave_size);
    }
    finish_pending(t, s->pc, s->exec, s->regs, s->masks);
    t->executed++;
    t->pending = 1;
    t->pc = s->pc;
    t->exec = s->exec;
    t->live = s->live;
    t->wave_size = s->wave_size;
    lanes_picture(s->exec, s->wave_size, t->exec_before);
}

int cli_cmd_trace(int argc, char **argv)
{
    cli_opts o;
    if (!cli_parse(CLI_CMD_trace, argc, argv, &o))
        return RUN_EXIT_BAD_INPUT;
    const char *path = o.nargs ? o.args[0] : NULL;
    uint32_t wave_index = (uint32_t)o.wave_index, lo = 0, hi = UINT32_MAX;
    const uint32_t *group = o.workgroup.xyz;
    uint64_t limit = o.limit ? o.limit : TRACE_DEFAULT_LIMIT;
    int json = o.json, by_line = o.given[CLI_OPT_lines], ranged = by_line || o.given[CLI_OPT_pc];
    if (o.given[CLI_OPT_lines] && o.given[CLI_OPT_pc]) {
        fprintf(stderr, "wavelab trace: give one of --lines and --pc\n");
        return RUN_EXIT_BAD_INPUT;
    }
    if (ranged)
        lo = by_line ? o.lines.lo : o.pc.lo, hi = by_line ? o.lines.hi : o.pc.hi;
    if (!path) {
        fprintf(stderr, "wavelab trace: no case file given (wavelab trace --help)\n");
        return RUN_EXIT_BAD_INPUT;
    }
    char err[2048];
    wl_case *c = NULL;
    if (case_load(path, &c, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return RUN_EXIT_BAD_INPUT;
    }
    for (int k = 0; k < 3; k++)
        if (group[k] >= c->groups[k]) {
            fprintf(stderr, "wavelab trace: --workgroup %u,%u,%u: the case dispatches %u x %u x %u workgroups\n",
                    group[0], group[1], group[2], c->groups[0], c->groups[1], c->groups[2]);
            case_destroy(c);
            return RUN_EXIT_BAD_INPUT;
        }

    run_output run;
    trace_state t = {.out = stdout, .run = &run, .lo = lo, .hi = hi, .by_line = by_line, .limit = limit,
                     .path = path, .group = {group[0], group[1], group[2]}, .wave_index = wave_index};
    sim_step_hook hook = {.group = {group[0], group[1], group[2]}, .wave = wave_index, .step = trace_step,
                          .user = &t};
    run_options opt = cli_run_options(&o);
    opt.threads = 1; /* the step hook follows one wave on one thread */
    opt.step = &hook;
    if (o.machine && cli_memory_open(o.machine, -1, 1, c, &opt) != 0) {
        case_destroy(c);
        return RUN_EXIT_BAD_INPUT;
    }
    cJSON *root = NULL;
    if (json) {
        root = cJSON_CreateObject();
        t.steps = cJSON_CreateArray();
        if (!root || !t.steps) {
            fprintf(stderr, "out of memory\n");
            cJSON_Delete(root);
            cJSON_Delete(t.steps);
            mem_model_destroy(opt.memory);
            case_destroy(c);
            return RUN_EXIT_BAD_INPUT;
        }
    }
    int rc = run_case_sim(c, &opt, &run, err, sizeof err);
    if (run.optimizer_note[0])
        fprintf(stderr, "wavelab trace: %s\n", run.optimizer_note);
    if (rc == RUN_EXIT_BAD_INPUT) {
        fprintf(stderr, "%s\n", err);
        goto done;
    }
    const isa_program *prog = run.prog;
    uint32_t W = run.wave_size;
    uint64_t local = (uint64_t)prog->local_size[0] * prog->local_size[1] * prog->local_size[2];
    uint32_t waves = (uint32_t)((local + W - 1) / W);
    if (t.failed) {
        fprintf(stderr, "out of memory\n");
        rc = RUN_EXIT_BAD_INPUT;
        goto done;
    }
    if (wave_index >= waves) {
        fprintf(stderr, "wavelab trace: --wave-index %u: a workgroup of %" PRIu64 " invocations has %u waves of %u\n",
                wave_index, local, waves, W);
        rc = RUN_EXIT_BAD_INPUT;
        goto done;
    }
    /* the wave's last instruction: END writes nothing; after a fault the state is gone */
    finish_pending(&t, 0, 0, NULL, NULL);
    char fault[512] = "";
    if (run.status == SIM_FAULT)
        snprintf(fault, sizeof fault, "%s: %s", sim_fault_kind_name(run.result.fault),
                 run.result.fault_event.message);
    uint64_t hidden = t.executed - t.shown;
    if (json) {
        cJSON_AddStringToObject(root, "case", path);
        cJSON *g = cJSON_AddArrayToObject(root, "workgroup");
        for (int k = 0; k < 3; k++)
            cJSON_AddItemToArray(g, cJSON_CreateNumber(group[k]));
        cJSON_AddNumberToObject(root, "wave", wave_index);
        cJSON_AddNumberToObject(root, "waves", waves);
        cJSON_AddNumberToObject(root, "wave_size", W);
        cJSON_AddNumberToObject(root, "executed", (double)t.executed);
        cJSON_AddNumberToObject(root, "shown", (double)t.shown);
        cJSON_AddBoolToObject(root, "truncated", t.shown >= t.limit && hidden > 0);
        if (fault[0])
            cJSON_AddStringToObject(root, "fault", fault);
        cJSON_AddItemToObject(root, "steps", t.steps);
        t.steps = NULL;
        char *s = cJSON_PrintUnformatted(root);
        if (s)
            printf("%s\n", s);
        free(s);
    } else {
        if (t.shown >= t.limit && hidden > 0)
            printf("\n... the trace stops here, after %" PRIu64 " shown instructions: %" PRIu64
                   " more of this wave's %" PRIu64 " are not shown (--limit N shows more)\n",
                   t.shown, hidden, t.executed);
        else
            printf("\n%" PRIu64 " instructions executed by this wave, %" PRIu64 " shown%s\n", t.executed, t.shown,
                   ranged ? " (the others are outside the range asked for)" : "");
        if (fault[0])
            printf("the run stopped: %s\n", fault);
    }
    if (run.status == SIM_FAULT)
        rc = RUN_EXIT_FAIL;
done:
    run_output_free(&run);
    mem_model_destroy(opt.memory);
    cJSON_Delete(root);
    cJSON_Delete(t.steps);
    free(t.loop_iteration);
    free(t.reg_type);
    case_destroy(c);
    return rc;
}
