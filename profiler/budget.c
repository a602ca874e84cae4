/* budget.c: tick budget files: parsing them and the limits of their bounds (budget.h). */
#include "profiler/budget.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* "what: where", or "what" when where is empty. */
static wd_status bad(wd_error *err, const char *what, const char *where)
{
    return wd_fail(err, WD_ERR_USAGE, 0, "%s%s%s", what, where[0] ? ": " : "", where);
}

static wd_status nomem(wd_error *err)
{
    return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
}

bool wd_budget_tol_parse(const char *s, wd_budget_tol *t)
{
    uint64_t whole = 0, frac = 0;
    int digits = 0, fdigits = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
        whole = whole * 10 + (uint64_t)(*p - '0');
    if (digits == 0)
        return false;
    if (*p == '.') {
        for (p++; *p >= '0' && *p <= '9' && fdigits < 3; p++, fdigits++)
            frac = frac * 10 + (uint64_t)(*p - '0');
        if (fdigits == 0)
            return false;
        for (int i = fdigits; i < 3; i++)
            frac *= 10;
    }
    if (strcmp(p, "%") != 0)
        return false;
    t->kind = 2;
    t->milli = whole * 1000 + frac;
    snprintf(t->text, sizeof t->text, "%s", s);
    return true;
}

uint64_t wd_budget_limit(const wd_budget_bound *b)
{
    uint64_t extra = 0;
    if (b->t.kind == 1)
        extra = b->t.ticks;
    else if (b->t.kind == 2) { /* floor(max * milli / 100000), without overflow */
        uint64_t q = b->max / 100000, r = b->max % 100000;
        uint64_t part = r * b->t.milli / 100000; /* r < 10^5, milli < 10^12: no overflow */
        extra = q != 0 && b->t.milli > UINT64_MAX / q ? UINT64_MAX : q * b->t.milli;
        extra = extra > UINT64_MAX - part ? UINT64_MAX : extra + part;
    }
    return b->max > UINT64_MAX - extra ? UINT64_MAX : b->max + extra;
}

/* A tolerance: a non-negative integer (ticks) or a string "N%" / "N.NNN%". */
static bool parse_tol(json_t *v, wd_budget_tol *t)
{
    *t = (wd_budget_tol){0};
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        t->kind = 1;
        t->ticks = (uint64_t)json_integer_value(v);
        snprintf(t->text, sizeof t->text, "%llu", (unsigned long long)t->ticks);
        return true;
    }
    return json_is_string(v) && wd_budget_tol_parse(json_string_value(v), t);
}

/* {"max": N, "tolerance": T} */
static wd_status parse_bound(const char *where, json_t *v, wd_budget_bound *b, wd_error *err)
{
    *b = (wd_budget_bound){0};
    if (!json_is_object(v))
        return bad(err, "expected {\"max\": N, \"tolerance\": T}", where);
    const char *key;
    json_t *x;
    json_object_foreach(v, key, x)
    {
        if (strcmp(key, "max") == 0) {
            if (!json_is_integer(x) || json_integer_value(x) < 0)
                return bad(err, "\"max\" must be a non-negative integer", where);
            b->max = (uint64_t)json_integer_value(x);
            b->present = true;
        } else if (strcmp(key, "tolerance") == 0) {
            if (!parse_tol(x, &b->t))
                return bad(err,
                           "\"tolerance\" must be ticks (an integer) or a percentage "
                           "like \"2%\" or \"0.5%\"",
                           where);
        } else {
            char msg[300];
            snprintf(msg, sizeof msg, "unknown field \"%s\"", key);
            return bad(err, msg, where);
        }
    }
    if (!b->present)
        return bad(err, "a bound needs \"max\"", where);
    return WD_OK;
}

static wd_status parse_phases(json_t *v, wd_budget *b, wd_error *err)
{
    if (!json_is_object(v))
        return bad(err, "\"phases\" must be an object", "");
    const char *key;
    json_t *x;
    json_object_foreach(v, key, x)
    {
        int ph = 0;
        while (ph < WD_PROF_PH_COUNT && strcmp(key, wd_prof_phase_names[ph]) != 0)
            ph++;
        char where[300];
        snprintf(where, sizeof where, "phases.%s", key);
        if (ph == WD_PROF_PH_COUNT)
            return bad(err, "unknown phase (decode, link, init, kernel_run)", where);
        WD_TRY(parse_bound(where, x, &b->phase[ph], err));
    }
    return WD_OK;
}

static wd_status parse_level(json_t *v, size_t i, wd_budget_level *l, wd_error *err)
{
    char where[64];
    snprintf(where, sizeof where, "levels[%zu]", i);
    if (!json_is_object(v))
        return bad(err, "expected {\"level\": N, \"ticks\": {...}, \"kernel_runs\": {...}}", where);
    const char *key;
    json_t *x;
    bool seen_level = false;
    json_object_foreach(v, key, x)
    {
        char w[128];
        snprintf(w, sizeof w, "%s.%s", where, key);
        if (strcmp(key, "level") == 0) {
            if (!json_is_integer(x) || json_integer_value(x) < 0 ||
                json_integer_value(x) > UINT32_MAX)
                return bad(err, "\"level\" must be a non-negative integer", where);
            l->level = (uint32_t)json_integer_value(x);
            seen_level = true;
        } else if (strcmp(key, "ticks") == 0) {
            WD_TRY(parse_bound(w, x, &l->ticks, err));
        } else if (strcmp(key, "kernel_runs") == 0) {
            WD_TRY(parse_bound(w, x, &l->runs, err));
        } else {
            char msg[300];
            snprintf(msg, sizeof msg, "unknown field \"%s\"", key);
            return bad(err, msg, where);
        }
    }
    return seen_level ? WD_OK : bad(err, "a level needs \"level\"", where);
}

static wd_status parse_levels(wd_ctx *ctx, json_t *v, wd_budget *b, wd_error *err)
{
    if (!json_is_array(v))
        return bad(err, "\"levels\" must be an array", "");
    size_t n = json_array_size(v);
    b->levels = wd_calloc(ctx, n + 1, sizeof *b->levels);
    if (b->levels == NULL)
        return nomem(err);
    for (size_t i = 0; i < n; i++) {
        WD_TRY(parse_level(json_array_get(v, i), i, &b->levels[i], err));
        for (size_t k = 0; k < i; k++)
            if (b->levels[k].level == b->levels[i].level) {
                char where[64];
                snprintf(where, sizeof where, "levels[%zu]", i);
                return bad(err, "level listed twice", where);
            }
        b->nlevels++;
    }
    return WD_OK;
}

static wd_status parse_functions(wd_ctx *ctx, json_t *v, wd_budget *b, wd_error *err)
{
    if (!json_is_object(v))
        return bad(err, "\"functions\" must be an object", "");
    b->funcs = wd_calloc(ctx, json_object_size(v) + 1, sizeof *b->funcs);
    if (b->funcs == NULL)
        return nomem(err);
    const char *key;
    json_t *x;
    json_object_foreach(v, key, x)
    {
        char where[300];
        snprintf(where, sizeof where, "functions.%s", key);
        wd_budget_func *f = &b->funcs[b->nfuncs];
        f->name = key;
        WD_TRY(parse_bound(where, x, &f->b, err));
        b->nfuncs++;
    }
    return WD_OK;
}

void wd_budget_free(wd_ctx *ctx, wd_budget *b)
{
    wd_free(ctx, b->levels);
    wd_free(ctx, b->funcs);
    json_decref(b->doc);
    memset(b, 0, sizeof *b);
}

/* The fields of the parsed document b->doc. */
static wd_status parse_doc(wd_ctx *ctx, wd_budget *b, wd_error *err)
{
    if (!json_is_object(b->doc))
        return bad(err, "a budget is a JSON object", "");
    const char *key;
    json_t *x;
    json_object_foreach(b->doc, key, x)
    {
        if (strcmp(key, "tick_model") == 0) {
            if (!json_is_string(x))
                return bad(err, "\"tick_model\" must be a string", "");
            b->model = json_string_value(x);
        } else if (strcmp(key, "total") == 0) {
            WD_TRY(parse_bound("total", x, &b->total, err));
        } else if (strcmp(key, "phases") == 0) {
            WD_TRY(parse_phases(x, b, err));
        } else if (strcmp(key, "levels") == 0) {
            WD_TRY(parse_levels(ctx, x, b, err));
        } else if (strcmp(key, "functions") == 0) {
            WD_TRY(parse_functions(ctx, x, b, err));
        } else if (strcmp(key, "description") != 0) {
            char msg[300];
            snprintf(msg, sizeof msg, "unknown field \"%s\"", key);
            return bad(err, msg, "");
        }
    }
    if (b->model == NULL)
        return bad(err, "\"tick_model\" is missing (the model the figures were measured under)",
                   "");
    return WD_OK;
}

/* Takes the document jansson parsed (NULL: the error in je) into *out. */
static wd_status from_doc(wd_ctx *ctx, json_t *doc, const json_error_t *je, wd_budget *out,
                          wd_error *err)
{
    if (doc == NULL && je->line < 1)
        return wd_fail(err, WD_ERR_IO, 0, "cannot read the budget file: %s", je->text);
    if (doc == NULL)
        return wd_fail(err, WD_ERR_MALFORMED, 0, "%d:%d: %s", je->line, je->column, je->text);
    wd_budget b;
    memset(&b, 0, sizeof b);
    b.doc = doc;
    wd_status st = parse_doc(ctx, &b, err);
    if (st != WD_OK)
        wd_budget_free(ctx, &b);
    else
        *out = b;
    return st;
}

wd_status wd_budget_parse(wd_ctx *ctx, const char *text, size_t size, wd_budget *out, wd_error *err)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *doc = json_loadb(text, size, JSON_REJECT_DUPLICATES, &je);
    if (doc == NULL) /* from memory, nothing can fail to be read */
        return wd_fail(err, WD_ERR_MALFORMED, 0, "%d:%d: %s", je.line, je.column, je.text);
    return from_doc(ctx, doc, &je, out, err);
}

wd_status wd_budget_load(wd_ctx *ctx, const char *path, wd_budget *out, wd_error *err)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    return from_doc(ctx, doc, &je, out, err);
}
