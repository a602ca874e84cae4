/* spec.h: the spec test runner's two halves. runner.c owns the command line, the known
 * failures list and the counts; script.c executes one wast2json script command by
 * command and reports each outcome back through wd_spec_record. */
#ifndef WD_TESTS_SPEC_SPEC_H
#define WD_TESTS_SPEC_SPEC_H

#include "base/base.h"

#include <stdio.h>

typedef enum wd_spec_result { WD_SPEC_PASS, WD_SPEC_FAIL, WD_SPEC_SKIP } wd_spec_result;

typedef struct wd_spec_opts {
    bool single_step; /* run every invocation one instruction at a time */
    bool no_fuse;     /* translate without peephole fusion (decode opts no_fuse) */
    bool verbose;
    FILE *ticks_log; /* NULL: no ticks log */
} wd_spec_opts;

typedef struct wd_spec_runner wd_spec_runner;

const wd_spec_opts *wd_spec_options(const wd_spec_runner *r);

/* Records the outcome of the command of kind `cmd` at wast:line; `reason` says why it
 * failed or was skipped (NULL for a pass). */
void wd_spec_record(wd_spec_runner *r, const char *wast, long line, const char *cmd,
                    wd_spec_result res, const char *reason);

/* An assertion got the expected category of error but a message that does not start with
 * the expected text: counted and listed with --verbose, not a failure. */
void wd_spec_mismatch(wd_spec_runner *r, const char *wast, long line, const char *expected,
                      const char *got);

/* Runs every command of the wast2json script at `json_path`, or, when `skip_reason` is
 * not NULL, records every command (but `register`) as skipped. Writes the script's .wast
 * name to `wast`; returns the number of commands seen. */
size_t wd_spec_run_script(wd_spec_runner *r, const char *json_path, const char *skip_reason,
                          char *wast, size_t wast_cap);

#endif
