/* budget.h: tick budget files (README.md, "Budgets"): their parsing and the limits of their
 * bounds. Running a kernel against one, and writing one, is `wasmdbg budget`'s
 * (cli/budget.c).
 *
 *   {"description": "...", "tick_model": "pvm",
 *    "total": BOUND, "phases": {"decode": BOUND, ...},
 *    "levels": [{"level": 0, "ticks": BOUND, "kernel_runs": BOUND}, ...],
 *    "functions": {"NAME": BOUND, ...}}
 *
 * with BOUND = {"max": N, "tolerance": T}, T ticks (an integer) or a percentage ("2%",
 * "0.5%": at most 3 decimals). Every field but tick_model is optional; any other is an
 * error. */
#ifndef WD_PROFILER_BUDGET_H
#define WD_PROFILER_BUDGET_H

#include "profiler/prof.h"

struct json_t;

typedef struct wd_budget_tol {
    int kind; /* 0 none, 1 ticks, 2 percent */
    uint64_t ticks;
    uint64_t milli; /* percent * 1000 */
    char text[32];  /* as written in the file: "2%", or the number */
} wd_budget_tol;

typedef struct wd_budget_bound {
    bool present;
    uint64_t max;
    wd_budget_tol t;
} wd_budget_bound;

typedef struct wd_budget_level {
    uint32_t level;
    wd_budget_bound ticks, runs;
} wd_budget_level;

typedef struct wd_budget_func {
    const char *name; /* in the parsed document */
    wd_budget_bound b;
} wd_budget_func;

typedef struct wd_budget {
    struct json_t *doc; /* the parsed file: the strings below point into it */
    const char *model;
    wd_budget_bound total, phase[WD_PROF_PH_COUNT];
    wd_budget_level *levels;
    uint32_t nlevels;
    wd_budget_func *funcs;
    uint32_t nfuncs;
} wd_budget;

/* Parses the budget file text[0..size) into *out (cleared first, set only on success; free
 * it with wd_budget_free). Messages do not name the file (the caller adds it, then a colon):
 * WD_ERR_MALFORMED for JSON syntax, "LINE:COL: <jansson's text>"; WD_ERR_USAGE for a bad
 * field, "what: where" (where is the field's path: "phases.init", "levels[2].ticks");
 * WD_ERR_NOMEM. */
WD_NODISCARD wd_status wd_budget_parse(wd_ctx *ctx, const char *text, size_t size, wd_budget *out,
                                       wd_error *err);

/* The same from the file at `path`; WD_ERR_IO "cannot read the budget file: <why>". */
WD_NODISCARD wd_status wd_budget_load(wd_ctx *ctx, const char *path, wd_budget *out, wd_error *err);

/* Frees what a parse made and clears *b; a cleared budget is a no-op. */
void wd_budget_free(wd_ctx *ctx, wd_budget *b);

/* A percentage "N%" or "N.NNN%" (at most 9 digits before the point, 3 after) into *t;
 * false when `s` is not one. */
bool wd_budget_tol_parse(const char *s, wd_budget_tol *t);

/* What a bound allows: max plus its tolerance (a percentage of max rounded down), at most
 * UINT64_MAX. */
uint64_t wd_budget_limit(const wd_budget_bound *b);

#endif
