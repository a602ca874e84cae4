/* pvmsteps.c: prints, for each module given, wasmdbg's count of the Octez PVM's decode and
 * init steps (vm/pvmticks.c): `FILE D N`, or `FILE error: MESSAGE` when the module does
 * not decode in PVM mode. A test-only tool for tests/octez/phases.sh, which compares the
 * figures with the reference model's. Exit status 2 on a usage error, else 0. */
#include "base/file.h"
#include "decode/decode.h"
#include "vm/pvmticks.h"
#include "vm/tickmodel.h"

#include <stdio.h>
#include <stdlib.h>

static void print_steps(wd_ctx *ctx, const char *path, const wd_costs *costs)
{
    wd_error err;
    wd_error_clear(&err);
    uint8_t *bytes = NULL;
    size_t size = 0;
    wd_module *m = NULL;
    wd_status st = wd_read_file(ctx, path, NULL, (size_t)1 << 30, &bytes, &size, &err);
    wd_decode_opts opts = {.costs = costs, .pvm = true};
    if (st == WD_OK)
        st = wd_decode_module(ctx, bytes, size, &opts, &m, &err);
    wd_pvmticks_decode d;
    if (st == WD_OK)
        st = wd_pvmticks_decode_steps(m, bytes, size, &d, &err);
    if (st == WD_OK) {
        wd_pvmticks_init n;
        wd_pvmticks_init_steps(m, costs, &n);
        printf("%s %llu %llu\n", path, (unsigned long long)d.total, (unsigned long long)n.total);
    } else {
        printf("%s error: %s\n", path, err.msg);
    }
    wd_module_free(m);
    wd_free(ctx, bytes);
}

int main(int argc, char **argv)
{
    const wd_costs *costs = wd_tickmodel_builtin("pvm");
    if (argc < 2 || costs == NULL) {
        fprintf(stderr, "usage: pvmsteps MODULE.wasm...\n");
        return 2;
    }
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    for (int i = 1; i < argc; i++)
        print_steps(&ctx, argv[i], costs);
    return 0;
}
