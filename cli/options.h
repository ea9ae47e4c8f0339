/*
 * cli/options.h — the commands and options of `wavelab`, from the one table cli/options.def: the argument
 * parser every command calls, the generated help, and the run options the simulator's options set.
 */
#ifndef WAVELAB_CLI_OPTIONS_H
#define WAVELAB_CLI_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

struct run_options;

/* the machine preset of the commands that always run the memory model (explain, timeline, profile, report) when
 * --machine does not name one */
#define CLI_DEFAULT_MACHINE "rdna2"

typedef enum cli_command {
#define CMD(id, args, max_args, help) CLI_CMD_##id,
#include "cli/options.def"
    CLI_CMD_COUNT
} cli_command;

/* the set of commands an option belongs to (options.def's `commands` column) */
#define CMDS(id) (1u << CLI_CMD_##id)

#define CLI_MAX_WAVES 16
typedef struct cli_waves {
    uint32_t size[CLI_MAX_WAVES];
    int count;
} cli_waves;
typedef struct cli_shard {
    uint64_t k, n; /* shard k (1-based) of n */
} cli_shard;
typedef struct cli_group {
    uint32_t xyz[3];
} cli_group;
typedef struct cli_range {
    uint32_t lo, hi; /* inclusive */
} cli_range;

typedef enum cli_option_id {
#define OPT(id, name, alias, meta, type, parser, lo, hi, commands, help) CLI_OPT_##id,
#include "cli/options.def"
    CLI_OPT_COUNT
} cli_option_id;

/* Every option's value: zero (NULL) when not given; given[CLI_OPT_x] says whether it was. */
typedef struct cli_opts {
#define OPT(id, name, alias, meta, type, parser, lo, hi, commands, help) type id;
#include "cli/options.def"
    unsigned char given[CLI_OPT_COUNT];
    char **args; /* the positional arguments in order (argv's own strings), nargs of them */
    int nargs;
} cli_opts;

/* Parses argv[1..argc-1] for command `cmd` against the table: fills *o, and o->args with the positional
 * arguments (moved to the front of argv[1..]).  Returns 1, or 0 after printing one line on stderr
 * ("wavelab CMD: --wave abc: not a wave size (...)", "wavelab CMD: unknown option --x (valid: ...)"): the
 * command then exits RUN_EXIT_BAD_INPUT. */
int cli_parse(cli_command cmd, int argc, char **argv, cli_opts *o);
/* cli_parse with the line in err (without "wavelab CMD: ") instead of on stderr: the C API reads its options'
 * `args` with it. */
int cli_parse_to(cli_command cmd, int argc, char **argv, cli_opts *o, char *err, size_t err_size);
/* "--name" of an option */
const char *cli_option_name(cli_option_id id);

/* The command called `name`: 1 and *cmd, or 0. */
int cli_command_find(const char *name, cli_command *cmd);
const char *cli_command_name(cli_command cmd);

/* `wavelab CMD --help`: the command's synopsis, what it does, each of its options with its help line, the
 * exit codes. */
void cli_command_help(cli_command cmd, FILE *f);
/* `wavelab --help`: every command's synopsis and what it does, then the notes that apply to all. */
void cli_help(FILE *f);

/* The run options every RUN row of options.def sets (wave size, robust access, budget, threads, ...); the
 * rest zero. */
struct run_options cli_run_options(const cli_opts *o);
/* The run options the given options of o set, into *r (the others left as they are): 1, or 0 with a line in err
 * when o gives an option that sets none (--machine aside, which the caller opens as a memory model).  The C API's
 * `args` go through it, so every RUN row reaches the API with no line of its own. */
int cli_apply_run_options(const cli_opts *o, struct run_options *r, char *err, size_t err_size);

/* The wave-size rule every --wave and --waves value meets (the simulator's: a power of two from SIM_MIN_WAVE
 * to SIM_MAX_WAVE): 1 and *wave, or 0. */
int cli_wave_size(const char *text, uint32_t *wave);

#endif
