/* budget_test.c: budget files parsed from memory and their bounds' limits
 * (profiler/budget.c). `wasmdbg budget`'s own tests are in tests/budget. */
#include "profiler/budget.h"
#include "tests/unit/test.h"

static wd_status parse(wd_ctx *ctx, const char *text, wd_budget *b, wd_error *err)
{
    wd_error_clear(err);
    return wd_budget_parse(ctx, text, strlen(text), b, err);
}

TEST(budget_parse_fields)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_budget b;
    wd_error err;
    const char *text =
        "{\"tick_model\": \"pvm\", \"total\": {\"max\": 100, \"tolerance\": \"2.5%\"},"
        " \"phases\": {\"init\": {\"max\": 7}},"
        " \"levels\": [{\"level\": 3, \"kernel_runs\": {\"max\": 1}}],"
        " \"functions\": {\"f\": {\"max\": 9, \"tolerance\": 4}}}";
    CHECK_EQ(parse(&ctx, text, &b, &err), WD_OK);
    CHECK(strcmp(b.model, "pvm") == 0);
    CHECK(b.total.present && b.total.max == 100 && b.total.t.kind == 2);
    CHECK_EQ(b.total.t.milli, 2500);
    CHECK(b.phase[WD_PROF_PH_INIT].present && !b.phase[WD_PROF_PH_DECODE].present);
    CHECK_EQ(b.nlevels, 1);
    CHECK(b.levels[0].level == 3 && b.levels[0].runs.present && !b.levels[0].ticks.present);
    CHECK_EQ(b.nfuncs, 1);
    CHECK(strcmp(b.funcs[0].name, "f") == 0 && b.funcs[0].b.t.kind == 1);
    wd_budget_free(&ctx, &b);
    CHECK_EQ(ctx.live, 0);
}

TEST(budget_parse_errors)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_budget b;
    wd_error err;
    CHECK_EQ(parse(&ctx, "{\"tick_model\": \"pvm\",\n \"total\": }", &b, &err), WD_ERR_MALFORMED);
    CHECK(strcmp(err.msg, "2:11: unexpected token near '}'") == 0);
    CHECK(b.doc == NULL && b.levels == NULL);
    CHECK_EQ(parse(&ctx,
                   "{\"tick_model\": \"pvm\", \"levels\": [{\"level\": 1,"
                   " \"ticks\": {\"max\": 1, \"tolrance\": 2}}]}",
                   &b, &err),
             WD_ERR_USAGE);
    CHECK(strcmp(err.msg, "unknown field \"tolrance\": levels[0].ticks") == 0);
    CHECK(b.doc == NULL && b.levels == NULL);
    CHECK_EQ(parse(&ctx, "{\"total\": {\"max\": 1}}", &b, &err), WD_ERR_USAGE);
    CHECK_STR_CONTAINS(err.msg, "\"tick_model\" is missing");
    CHECK_EQ(parse(&ctx, "[]", &b, &err), WD_ERR_USAGE);
    CHECK(strcmp(err.msg, "a budget is a JSON object") == 0);
    CHECK_EQ(ctx.live, 0);
}

TEST(budget_limit)
{
    wd_budget_bound b = {.present = true, .max = 1000};
    CHECK_EQ(wd_budget_limit(&b), 1000);
    CHECK(wd_budget_tol_parse("0.5%", &b.t));
    CHECK_EQ(wd_budget_limit(&b), 1005);
    CHECK(wd_budget_tol_parse("0.05%", &b.t));
    CHECK_EQ(wd_budget_limit(&b), 1000); /* 0.5 tick, rounded down */
    CHECK(!wd_budget_tol_parse("0.0005%", &b.t) && !wd_budget_tol_parse("2", &b.t) &&
          !wd_budget_tol_parse("1234567890%", &b.t) && !wd_budget_tol_parse(".5%", &b.t));
    b.t = (wd_budget_tol){.kind = 1, .ticks = UINT64_MAX};
    CHECK(wd_budget_limit(&b) == UINT64_MAX);
    /* max * 999999999.999% just over 2^64: the whole thousands' part fits, not the rest
     * (the limit wrapped around to 2770936501638) */
    b.max = 1844674499999;
    CHECK(wd_budget_tol_parse("999999999.999%", &b.t));
    CHECK(wd_budget_limit(&b) == UINT64_MAX);
    b.max = 100000;
    CHECK(wd_budget_limit(&b) == 100000u + 999999999999u);
}
