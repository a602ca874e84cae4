/* decode.c: module decoding (decode/), in plain WebAssembly mode (floats allowed, the flat-1
 * model) and in PVM mode (floats rejected, the pvm model), with the Octez PVM's decode and
 * init step counts of a module that decodes (vm/pvmticks.c), its function names and the
 * DWARF line tables of its custom sections (profiler/dwarf.c). Checks that a failure is a
 * decode error with a message and no module. */
#include "decode/decode.h"

#include "profiler/dwarf.h"
#include "tests/fuzz/fuzz.h"
#include "vm/pvmticks.h"
#include "vm/tickmodel.h"

/* The line tables, looked up at each function body's module offset (any address will do). */
static void lines(wd_ctx *ctx, const wd_module *m)
{
    const wd_custom *line = wd_module_custom(m, ".debug_line");
    if (line == NULL)
        return;
    const wd_custom *ls = wd_module_custom(m, ".debug_line_str");
    const wd_custom *str = wd_module_custom(m, ".debug_str");
    wd_dwarf_sections secs = {line->data,
                              line->size,
                              ls ? ls->data : NULL,
                              ls ? ls->size : 0,
                              str ? str->data : NULL,
                              str ? str->size : 0};
    wd_error err;
    wd_error_clear(&err);
    wd_dwarf_lines *l;
    if (wd_dwarf_lines_parse(ctx, &secs, &l, &err) != WD_OK)
        return;
    for (uint32_t i = m->import_func_count; i < m->func_count; i++) {
        const char *file;
        uint32_t ln, col;
        if (wd_dwarf_lookup(l, m->funcs[i].body_offset, &file, &ln, &col) && file == NULL)
            wd_fuzz_fail("a line without a file");
    }
    wd_dwarf_lines_free(l);
}

static void decode(wd_ctx *ctx, const uint8_t *data, size_t size, bool pvm)
{
    const wd_costs *costs = wd_tickmodel_builtin(pvm ? "pvm" : "flat-1");
    wd_decode_opts opts = {.costs = costs, .pvm = pvm, .threads = 1};
    wd_error err;
    wd_error_clear(&err);
    wd_module *m = (wd_module *)&err; /* any non-NULL pointer: a failed decode clears it */
    wd_status st = wd_decode_module(ctx, data, size, &opts, &m, &err);
    if (st != WD_OK) {
        if (m != NULL || err.msg[0] == '\0' || err.status != st ||
            (st != WD_ERR_MALFORMED && st != WD_ERR_INVALID && st != WD_ERR_NOMEM))
            wd_fuzz_fail("decode failed with status %s, message \"%s\", module %p",
                         wd_status_name(st), err.msg, (void *)m);
        return;
    }
    char buf[64];
    for (uint32_t i = 0; i < m->func_count; i++)
        if (wd_module_func_name(m, i, buf, sizeof buf) == NULL)
            wd_fuzz_fail("function %u has no name", i);
    if (pvm) {
        wd_pvmticks_decode d;
        if (wd_pvmticks_decode_steps(m, data, size, &d, &err) == WD_OK) {
            wd_pvmticks_init n;
            wd_pvmticks_init_steps(m, costs, &n);
            (void)wd_pvmticks_link(m);
        }
    }
    lines(ctx, m);
    wd_module_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    decode(&ctx, data, size, false);
    decode(&ctx, data, size, true);
    wd_fuzz_check_freed(&ctx, "decode");
    return 0;
}
