/* cli.h: the wasmdbg subcommands and what they share. cli/ is the only code that prints
 * to the terminal. Exit codes (DESIGN.md): 0 success, 1 a check failed or the code ran
 * into a trap or the tick limit, 2 usage, I/O or input error. */
#ifndef WD_CLI_CLI_H
#define WD_CLI_CLI_H

#include "base/alloc.h"
#include "base/error.h"

#define WD_VERSION "0.1.0"

enum { WD_EXIT_OK = 0, WD_EXIT_FAILED = 1, WD_EXIT_USAGE = 2 };

/* `wasmdbg invoke MODULE FUNC [ARG...]`; argv[0] is "invoke". Returns the exit code. */
int wd_cli_invoke(int argc, char **argv);

/* `wasmdbg run KERNEL --inputs FILE [options]`; argv[0] is "run". */
int wd_cli_run(int argc, char **argv);
/* run.c: a run report's backtrace, innermost first, with source lines where the module `m`
 * (the one the run ran) has DWARF: text lines "#N name at 0xOFF (file:line)" after `indent`,
 * or in the JSON object `jr` a "backtrace" array of {function, func_idx, offset[, file,
 * line]} (and "backtrace_more", the frames left out). `loc` caches the line tables. */
struct wd_run_report;
struct wd_srcloc;
struct wd_module;
struct json_t;
void wd_cli_print_backtrace(const struct wd_run_report *x, struct wd_srcloc *loc,
                            const struct wd_module *m, const char *indent);
void wd_cli_backtrace_json(struct json_t *jr, const struct wd_run_report *x,
                           struct wd_srcloc *loc, const struct wd_module *m);

/* `wasmdbg profile KERNEL --inputs FILE [options]`; argv[0] is "profile". */
int wd_cli_profile(int argc, char **argv);

/* `wasmdbg report TRACE [options]`; argv[0] is "report". */
int wd_cli_report(int argc, char **argv);

/* `wasmdbg debug KERNEL [--inputs FILE] [options]`, the REPL; argv[0] is "debug" (or the
 * program, for `wasmdbg KERNEL ...`). */
int wd_cli_debug(int argc, char **argv);

/* `wasmdbg budget check|update KERNEL --inputs FILE --budget FILE [options]`: tick budgets
 * for CI; argv[0] is "budget". */
int wd_cli_budget(int argc, char **argv);

/* `wasmdbg diff OLD.json NEW.json`: two JSON profiles compared; argv[0] is "diff". */
int wd_cli_diff(int argc, char **argv);

/* Prints `doc` (a jansson json_t, whose reference it takes) on stdout, indented by 2, keys
 * in insertion order; false when it could not be encoded. */
struct json_t;
bool wd_cli_print_json(struct json_t *doc);

/* When `model`, the tick model the figures of the file at `path` were recorded under, is a
 * retired one (wd_tickmodel_retired), prints why they cannot be compared with any figures
 * now and the command that records them anew (`words`, shell-quoted where needed):
 *   wasmdbg: PATH: recorded under tick model M, which was .... Its figures cannot be
 *   compared with today's: record them anew with `wasmdbg ...`
 * and returns WD_EXIT_USAGE; else returns -1 and prints nothing. Every reader of a recorded
 * model name (budget, diff, report) goes through here. */
int wd_cli_refuse_retired(const char *path, const char *model, const char *const *words,
                          size_t count);

/* Reads the module at `path`: a binary module as it is, a text module (.wat, .wast)
 * converted by `wat2wasm --debug-names` into a temporary file (so it gets a name
 * section). *out is owned by the caller (wd_free). Errors: WD_ERR_IO with a message
 * that names the file, WD_ERR_NOMEM. */
WD_NODISCARD wd_status wd_cli_read_module(wd_ctx *ctx, const char *path, uint8_t **out,
                                          size_t *size, wd_error *err);

#endif
