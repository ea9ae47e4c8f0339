/*
 * cli/options.c — the one argument parser of `wavelab` and its generated help, both read from the table in
 * cli/options.def.  A command calls cli_parse with its own id; what it may take, how each value is read and
 * checked, and what `--help` says about it all come from the table's rows.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "img/img.h"
#include "run/run.h"
#include "sim/sim.h"
#include "text/text.h"

typedef struct cli_option cli_option;
/* Reads `text` into the field; returns 1, or 0 with why it is not a value of the option. */
typedef int (*cli_parser)(const cli_option *o, const char *text, void *field, char *why, size_t why_size);

struct cli_option {
    const char *name, *alias, *meta;
    cli_parser parse;
    uint64_t lo, hi;
    unsigned commands;
    size_t offset;
    const char *help;
};

typedef struct cli_command_row {
    const char *name, *args;
    int max_args;
    const char *help;
} cli_command_row;

static const cli_command_row commands[CLI_CMD_COUNT] = {
#define CMD(id, args, max_args, help) {#id, args, max_args, help},
#include "cli/options.def"
};

/* ------------------------------------------------------------ value parsers */

int cli_wave_size(const char *text, uint32_t *wave)
{
    char *end;
    errno = 0;
    unsigned long w = strtoul(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || text[0] == '+' || !sim_wave_size_valid(w))
        return 0;
    *wave = (uint32_t)w;
    return 1;
}

/* An unsigned decimal (or 0x hexadecimal) integer from lo to hi. */
static int read_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *end || s[0] == '-' || s[0] == '+' || s[0] == ' ' || v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

static int parse_flag(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    (void)o, (void)text, (void)why, (void)why_size;
    *(int *)field = 1;
    return 1;
}

static int parse_wave(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    (void)o;
    uint32_t w;
    if (!cli_wave_size(text, &w)) {
        snprintf(why, why_size, "not a wave size (a power of two from %u to %u)", SIM_MIN_WAVE, SIM_MAX_WAVE);
        return 0;
    }
    *(uint64_t *)field = w;
    return 1;
}

static int parse_waves(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    (void)o;
    cli_waves *w = field, got = {.count = 0};
    for (const char *p = text;; p++) {
        char item[32];
        size_t n = strcspn(p, ",");
        if (n >= sizeof item || got.count == CLI_MAX_WAVES)
            goto bad;
        memcpy(item, p, n);
        item[n] = 0;
        if (!cli_wave_size(item, &got.size[got.count++]))
            goto bad;
        p += n;
        if (!*p)
            break;
    }
    *w = got;
    return 1;
bad:
    snprintf(why, why_size, "not a list of wave sizes (at most %d, each a power of two from %u to %u)",
             CLI_MAX_WAVES, SIM_MIN_WAVE, SIM_MAX_WAVE);
    return 0;
}

static int parse_count(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    if (!read_uint(text, o->lo, o->hi, field)) {
        if (o->hi == UINT64_MAX)
            snprintf(why, why_size, "not a count");
        else
            snprintf(why, why_size, "not a count from %llu to %llu", (unsigned long long)o->lo,
                     (unsigned long long)o->hi);
        return 0;
    }
    return 1;
}

static int parse_seconds(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    char *end;
    double s = strtod(text, &end);
    if (end == text || *end || !(s > (double)o->lo && s < (double)o->hi)) {
        snprintf(why, why_size, "not a number of seconds above %llu and below %llu", (unsigned long long)o->lo,
                 (unsigned long long)o->hi);
        return 0;
    }
    *(double *)field = s;
    return 1;
}

static int parse_text(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    (void)o;
    if (!text[0]) {
        snprintf(why, why_size, "empty");
        return 0;
    }
    *(const char **)field = text;
    return 1;
}

/* One of the words of the row's meta ("sim|vulkan"). */
static int parse_choice(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    size_t n = strlen(text);
    for (const char *p = o->meta; n && *p; p += strcspn(p, "|"), p += *p == '|')
        if (strncmp(p, text, n) == 0 && (p[n] == '|' || !p[n])) {
            *(const char **)field = text;
            return 1;
        }
    snprintf(why, why_size, "not one of %s", o->meta);
    return 0;
}

/* `--optimize` alone: spirv-opt's -O list; `--optimize=PASSES`: "performance", "size" or spirv-opt flags. */
static int parse_optimize(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    (void)o;
    if (text && !text[0]) {
        snprintf(why, why_size, "no passes after \"=\"");
        return 0;
    }
    *(const char **)field = text ? text : "performance";
    return 1;
}

static int parse_layout(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    img_layout l;
    if (!img_layout_by_name(text, &l)) {
        snprintf(why, why_size, "not one of %s", o->meta);
        return 0;
    }
    *(int *)field = (int)l;
    return 1;
}

static int parse_shard(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    cli_shard *s = field;
    const char *slash = strchr(text, '/');
    char head[24];
    size_t len = slash ? (size_t)(slash - text) : 0;
    if (slash && len && len < sizeof head) {
        memcpy(head, text, len);
        head[len] = 0;
        if (read_uint(head, 1, o->hi, &s->k) && read_uint(slash + 1, 1, o->hi, &s->n) && s->k <= s->n)
            return 1;
    }
    snprintf(why, why_size, "not K/N with 1 <= K <= N <= %llu", (unsigned long long)o->hi);
    return 0;
}

static int parse_group(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    (void)o;
    unsigned x, y, z;
    int used = 0;
    if (text[0] == '-' || sscanf(text, "%u,%u,%u%n", &x, &y, &z, &used) != 3 || text[used] || strchr(text, '-')) {
        snprintf(why, why_size, "not X,Y,Z");
        return 0;
    }
    *(cli_group *)field = (cli_group){{x, y, z}};
    return 1;
}

/* "A-B" (A <= B) or "A". */
static int parse_range(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    (void)o;
    const char *dash = strchr(text, '-');
    char head[24];
    size_t len = dash ? (size_t)(dash - text) : strlen(text);
    uint64_t a, b;
    if (len && len < sizeof head) {
        memcpy(head, text, len);
        head[len] = 0;
        if (read_uint(head, 0, UINT32_MAX, &a) && (!dash ? (b = a, 1) : read_uint(dash + 1, 0, UINT32_MAX, &b)) &&
            a <= b) {
            *(cli_range *)field = (cli_range){(uint32_t)a, (uint32_t)b};
            return 1;
        }
    }
    snprintf(why, why_size, "not A-B (A <= B) or A");
    return 0;
}

/* "linear" (0) or "tiled:N" (N >= 1: tiles of N workgroups). */
static int parse_order(const cli_option *o, const char *text, void *field, char *why, size_t why_size)
{
    (void)o;
    if (strcmp(text, "linear") == 0) {
        *(uint64_t *)field = 0;
        return 1;
    }
    if (strncmp(text, "tiled:", 6) == 0 && read_uint(text + 6, 1, UINT32_MAX, field))
        return 1;
    snprintf(why, why_size, "not linear or tiled:N");
    return 0;
}

static const cli_option options[CLI_OPT_COUNT] = {
#define OPT(id, name, alias, meta, type, parser, lo, hi, commands, help)                                            \
    {name, alias, meta, parse_##parser, (uint64_t)(lo), (uint64_t)(hi), commands, offsetof(cli_opts, id), help},
#include "cli/options.def"
};

/* ------------------------------------------------------------ the parser */

static int takes(const cli_option *o, cli_command cmd) { return (o->commands >> cmd) & 1u; }

/* The row named by `arg` ("--name", or "--name=value" with *value set to the text after "=") among cmd's. */
static const cli_option *find_option(cli_command cmd, const char *arg, const char **value)
{
    *value = NULL;
    for (int k = 0; k < CLI_OPT_COUNT; k++) {
        const cli_option *o = &options[k];
        if (!takes(o, cmd))
            continue;
        for (const char *name = o->name; name; name = name == o->name ? o->alias : NULL) {
            size_t n = strlen(name);
            if (strncmp(arg, name, n) != 0)
                continue;
            if (!arg[n])
                return o;
            if (arg[n] == '=' && o->meta) {
                *value = arg + n + 1;
                return o;
            }
        }
    }
    return NULL;
}

static void unknown_option(cli_command cmd, const char *arg, char *err, size_t err_size)
{
    text_appendf(err, err_size, "unknown option %s", arg);
    const char *sep = " (valid: ";
    for (int k = 0; k < CLI_OPT_COUNT; k++)
        if (takes(&options[k], cmd)) {
            text_appendf(err, err_size, "%s%s", sep, options[k].name);
            sep = ", ";
        }
    text_appendf(err, err_size, "%s", sep[0] == ',' ? ")" : " (it takes none)");
}

const char *cli_option_name(cli_option_id id) { return options[id].name; }

int cli_parse_to(cli_command cmd, int argc, char **argv, cli_opts *opts, char *err, size_t err_size)
{
    memset(opts, 0, sizeof *opts);
    if (err_size)
        err[0] = 0;
    opts->args = argv + 1;
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        const char *value;
        if (arg[0] != '-' || !arg[1]) {
            if (commands[cmd].max_args >= 0 && opts->nargs >= commands[cmd].max_args) {
                text_appendf(err, err_size, "unexpected argument \"%s\"", arg);
                return 0;
            }
            opts->args[opts->nargs++] = arg; /* never past argv[i]: the front of argv holds what was read */
            continue;
        }
        const cli_option *o = find_option(cmd, arg, &value);
        if (!o) {
            unknown_option(cmd, arg, err, err_size);
            return 0;
        }
        int optional = o->parse == parse_optimize; /* --optimize alone, or with "=PASSES" */
        if (o->meta && !value && !optional) {
            if (i + 1 >= argc) {
                text_appendf(err, err_size, "%s needs a value (%s)", arg, o->meta);
                return 0;
            }
            value = argv[++i];
        }
        char why[200];
        int id = (int)(o - options);
        if (!o->parse(o, value, (char *)opts + o->offset, why, sizeof why)) {
            text_appendf(err, err_size, "%s%s%s: %s", o->name, value == argv[i] ? " " : "=", value, why);
            return 0;
        }
        opts->given[id] = 1;
    }
    return 1;
}

int cli_parse(cli_command cmd, int argc, char **argv, cli_opts *opts)
{
    char err[2048];
    if (cli_parse_to(cmd, argc, argv, opts, err, sizeof err))
        return 1;
    fprintf(stderr, "wavelab %s: %s\n", commands[cmd].name, err);
    return 0;
}

/* whether an option has a RUN row: it sets a run_options field */
static const unsigned char sets_run_field[CLI_OPT_COUNT] = {
#define RUN(opt_id, run_field) [CLI_OPT_##opt_id] = 1,
#include "cli/options.def"
};

/* The run_options field of every RUN row whose option was given (one not given is zero in cli_opts) */
static void copy_given_run_fields(const cli_opts *o, run_options *r)
{
#define RUN(opt_id, run_field)                                                                                        \
    if (o->given[CLI_OPT_##opt_id])                                                                                   \
        r->run_field = o->opt_id;
#include "cli/options.def"
}

int cli_apply_run_options(const cli_opts *o, struct run_options *r, char *err, size_t err_size)
{
    for (int k = 0; k < CLI_OPT_COUNT; k++)
        if (o->given[k] && !sets_run_field[k] && k != CLI_OPT_machine) {
            text_appendf(err, err_size, "%s does not set a run option (the API takes:", options[k].name);
            for (int j = 0; j < CLI_OPT_COUNT; j++)
                if (sets_run_field[j] || j == CLI_OPT_machine)
                    text_appendf(err, err_size, " %s", options[j].name);
            text_appendf(err, err_size, ")");
            return 0;
        }
    copy_given_run_fields(o, r);
    return 1;
}

struct run_options cli_run_options(const cli_opts *o)
{
    run_options r;
    memset(&r, 0, sizeof r);
    copy_given_run_fields(o, &r);
    if (!o->given[CLI_OPT_threads]) { /* one per core: the results never depend on it */
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        r.threads = n > 0 ? (uint32_t)n : 1;
    }
    return r;
}

int cli_command_find(const char *name, cli_command *cmd)
{
    for (int k = 0; k < CLI_CMD_COUNT; k++)
        if (strcmp(commands[k].name, name) == 0) {
            *cmd = (cli_command)k;
            return 1;
        }
    return 0;
}

const char *cli_command_name(cli_command cmd) { return commands[cmd].name; }

/* ------------------------------------------------------------ help */

static const char exit_codes_text[] =
    "exit codes: 0 ok, 1 fault/failure/mismatch, 2 bad input, 3 skipped (device cannot run the case)\n";

#define HELP_WIDTH 112

/* "CMD ARGS [--opt META] ...", wrapped at HELP_WIDTH with continuation lines indented by 6. */
static void print_synopsis(cli_command cmd, FILE *f, size_t column)
{
    const cli_command_row *c = &commands[cmd];
    column += (size_t)fprintf(f, "%s%s%s", c->name, c->args[0] ? " " : "", c->args);
    for (int k = 0; k < CLI_OPT_COUNT; k++) {
        const cli_option *o = &options[k];
        if (!takes(o, cmd))
            continue;
        char word[160];
        int optional = o->parse == parse_optimize;
        snprintf(word, sizeof word, " [%s%s%s]", o->name, o->meta && !optional ? " " : "", o->meta ? o->meta : "");
        if (column + strlen(word) > HELP_WIDTH) {
            fputs("\n     ", f);
            column = 5;
        }
        column += (size_t)fprintf(f, "%s", word);
    }
    fputc('\n', f);
}

/* The command's help text, each line indented by 8. */
static void print_what(cli_command cmd, FILE *f)
{
    for (const char *p = commands[cmd].help; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "        %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

void cli_command_help(cli_command cmd, FILE *f)
{
    fputs("usage: wavelab ", f);
    print_synopsis(cmd, f, 15);
    print_what(cmd, f);
    int any = 0;
    for (int k = 0; k < CLI_OPT_COUNT; k++) {
        const cli_option *o = &options[k];
        if (!takes(o, cmd))
            continue;
        char left[160];
        int optional = o->parse == parse_optimize;
        snprintf(left, sizeof left, "%s%s%s%s%s", o->name, o->alias ? ", " : "", o->alias ? o->alias : "",
                 o->meta && !optional ? " " : "", o->meta ? o->meta : "");
        fprintf(f, "%s  %-28s", any++ ? "" : "options:\n", left);
        size_t column = 31 + (strlen(left) > 28 ? strlen(left) - 28 : 0);
        for (const char *p = o->help; *p;) { /* words wrapped at HELP_WIDTH, continued under the first */
            size_t n = strcspn(p, " ");
            if (column + 1 + n > HELP_WIDTH) {
                fprintf(f, "\n%30s", "");
                column = 30;
            }
            column += (size_t)fprintf(f, " %.*s", (int)n, p);
            p += n + (p[n] == ' ');
        }
        fputc('\n', f);
    }
    fputs(exit_codes_text, f);
}

void cli_help(FILE *f)
{
    fputs("usage: wavelab COMMAND [ARGS]\n\n", f);
    for (int k = 0; k < CLI_CMD_COUNT; k++) {
        fputs("  ", f);
        print_synopsis((cli_command)k, f, 2);
        print_what((cli_command)k, f);
    }
    fputs("  help [COMMAND]\n"
          "        this text, or one command's entry of it\n"
          "\n"
          "kernels run as written: no optimizer moves code across control flow.  --optimize runs spirv-opt's\n"
          "-O list (or PASSES: \"size\", or spirv-opt flags) and says when the results differ from the kernel\n"
          "as written.  An option's value follows it (--wave 32) or an \"=\" (--wave=32).\n"
          "every command takes --help: its options, each with what it does; wavelab --version prints the version\n"
          "every command that compiles takes --no-cache (or WAVELAB_NO_CACHE=1): compile without the SPIR-V\n"
          "cache in $XDG_CACHE_HOME/wavelab (default ~/.cache/wavelab); --no-lean (or WAVELAB_NO_LEAN=1): run\n"
          "the wave program as lowered, without copy propagation, phi coalescing and edge-mask removal\n"
          "\n", f);
    fputs(exit_codes_text, f);
}
