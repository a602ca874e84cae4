/* budget.c: budget files (profiler/budget.c, as `wasmdbg budget` reads them): the parse, and
 * the limit of every bound it holds against max + tolerance computed exactly. The same
 * bytes also go to the percentage parser (`budget update --tolerance`). */
#include "profiler/budget.h"

#include "tests/fuzz/fuzz.h"

#include <inttypes.h>

static void check_limit(const wd_budget_bound *b, const char *what)
{
    if (!b->present)
        return;
    unsigned __int128 want = b->max;
    if (b->t.kind == 1)
        want += b->t.ticks;
    else if (b->t.kind == 2)
        want += (unsigned __int128)b->max * b->t.milli / 100000;
    if (want > UINT64_MAX)
        want = UINT64_MAX;
    uint64_t got = wd_budget_limit(b);
    if (got != (uint64_t)want)
        wd_fuzz_fail("%s: max %" PRIu64 ", tolerance %s: limit %" PRIu64 ", not %" PRIu64, what,
                     b->max, b->t.text, got, (uint64_t)want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_budget b;
    wd_status st = wd_budget_parse(&ctx, (const char *)data, size, &b, &err);
    if (st == WD_OK) {
        check_limit(&b.total, "total");
        for (int i = 0; i < WD_PROF_PH_COUNT; i++)
            check_limit(&b.phase[i], wd_prof_phase_names[i]);
        for (uint32_t i = 0; i < b.nlevels; i++) {
            check_limit(&b.levels[i].ticks, "a level's ticks");
            check_limit(&b.levels[i].runs, "a level's kernel runs");
        }
        for (uint32_t i = 0; i < b.nfuncs; i++)
            check_limit(&b.funcs[i].b, b.funcs[i].name);
    } else if (b.doc != NULL || err.msg[0] == '\0') {
        wd_fuzz_fail("budget: %s, \"%s\", its document kept", wd_status_name(st), err.msg);
    }
    wd_budget_free(&ctx, &b);
    char *text = wd_strndup(&ctx, (const char *)data, size);
    wd_budget_tol t;
    if (text != NULL && wd_budget_tol_parse(text, &t) && t.milli > 999999999999u)
        wd_fuzz_fail("tolerance %s: %" PRIu64 " thousandths of a percent", text, t.milli);
    wd_free(&ctx, text);
    wd_fuzz_check_freed(&ctx, "budget");
    return 0;
}
