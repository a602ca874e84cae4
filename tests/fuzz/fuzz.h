/* fuzz.h: what the libFuzzer targets of tests/fuzz/ share (tests/fuzz/README.md). Each
 * target is one file defining LLVMFuzzerTestOneInput (and wd_fuzz_setup if it needs one); it frees
 * everything it made before returning (LeakSanitizer runs after every input) and prints
 * nothing. They are linked with libFuzzer (build/fuzz/fuzz-NAME) or with replay.c, which
 * runs them once on given files (build/asan/replay-NAME, for tests/regress). */
#ifndef WD_TESTS_FUZZ_FUZZ_H
#define WD_TESTS_FUZZ_FUZZ_H

#include "base/alloc.h"
#include "base/error.h"

#include <stdio.h>

int LLVMFuzzerInitialize(int *argc, char ***argv); /* fuzz.c: wd_fuzz_silence, wd_fuzz_setup */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* A target's own set-up, once, after wd_fuzz_silence (fuzz.c has an empty one that a
 * target's definition replaces). */
void wd_fuzz_setup(void);

/* Makes the code under test print nowhere: the stdout and stderr streams become /dev/null
 * and stdin an empty file (file descriptor 0 too: nothing reads the terminal). libFuzzer and
 * the sanitizers write to file descriptor 2 and their own copy of the first stderr, so
 * their reports still show. Returns the stderr stream they had (for the target's own
 * reports of a failed check). */
FILE *wd_fuzz_silence(void);

/* Writes data[0..size) into the file `name` of wd_fuzz_dir (a new file each time) and returns
 * its path, valid until the next call. Aborts when it cannot be written. */
const char *wd_fuzz_file(const char *name, const uint8_t *data, size_t size);

/* A private directory of this process, created at the first call, removed (with what is
 * in it) at exit; wd_fuzz_empty_dir removes what is in it. */
const char *wd_fuzz_dir(void);
void wd_fuzz_empty_dir(void);

/* Aborts, naming `what`, when `ctx` still has allocations (wd_ctx counts its own: a leak
 * LeakSanitizer would see too, reported here where it happens). */
void wd_fuzz_check_freed(const wd_ctx *ctx, const char *what);

/* A failed check of the target's own: prints `what` on the first stderr and aborts, so
 * libFuzzer keeps the input as a crash. */
void wd_fuzz_fail(const char *fmt, ...) WD_PRINTF(1, 2);

#endif
