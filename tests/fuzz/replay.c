/* replay.c: a main for the fuzz targets without libFuzzer: runs the target once on each file
 * given, in order, as libFuzzer does when handed files (tests/regress/run.sh replays the
 * inputs of fixed bugs through build/asan/replay-NAME, a build with any compiler). A crash or
 * a sanitizer report ends the process; else it prints `replayed N files` and exits 0
 * (2 when a file cannot be read). */
#include "base/file.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    FILE *out = stdout, *err = stderr; /* before the target silences them */
    if (LLVMFuzzerInitialize(&argc, &argv) != 0)
        return 2;
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    for (int i = 1; i < argc; i++) {
        wd_error e;
        wd_error_clear(&e);
        uint8_t *data;
        size_t size;
        if (wd_read_file(&ctx, argv[i], NULL, (size_t)1 << 30, &data, &size, &e) != WD_OK) {
            fprintf(err, "replay: %s\n", e.msg);
            return 2;
        }
        /* a copy of its own size, as libFuzzer gives: ASan sees a read past the end */
        uint8_t *exact = wd_alloc(&ctx, size);
        if (exact == NULL) {
            fprintf(err, "replay: out of memory\n");
            return 2;
        }
        memcpy(exact, data, size);
        wd_free(&ctx, data);
        LLVMFuzzerTestOneInput(exact, size);
        wd_free(&ctx, exact);
    }
    fprintf(out, "replayed %d file%s\n", argc - 1, argc == 2 ? "" : "s");
    return 0;
}
