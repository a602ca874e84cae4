/* module.c: queries on a decoded module. */
#include "decode/module.h"

#include <string.h>

const char *wd_valtype_name(uint8_t t)
{
    switch (t) {
    case WD_I32: return "i32";
    case WD_I64: return "i64";
    case WD_F32: return "f32";
    case WD_F64: return "f64";
    case WD_V128: return "v128";
    case WD_FUNCREF: return "funcref";
    case WD_EXTERNREF: return "externref";
    default: return "?";
    }
}

uint8_t wd_valtype_parse(const char *name, size_t len)
{
    static const uint8_t types[] = {WD_I32,  WD_I64,     WD_F32,      WD_F64,
                                    WD_V128, WD_FUNCREF, WD_EXTERNREF};
    for (size_t i = 0; i < sizeof types; i++) {
        const char *n = wd_valtype_name(types[i]);
        if (strlen(n) == len && memcmp(n, name, len) == 0)
            return types[i];
    }
    return 0;
}

bool wd_functype_equal(const wd_functype *a, const wd_functype *b)
{
    if (a == b)
        return true;
    if (a->param_count != b->param_count || a->result_count != b->result_count)
        return false;
    return (a->param_count == 0 || memcmp(a->params, b->params, a->param_count) == 0) &&
           (a->result_count == 0 || memcmp(a->results, b->results, a->result_count) == 0);
}

/* Linear: modules export a handful of names and callers look them up once. */
int64_t wd_module_find_export(const wd_module *m, const char *name, uint8_t kind)
{
    size_t len = strlen(name);
    for (uint32_t i = 0; i < m->export_count; i++) {
        const wd_export *e = &m->exports[i];
        if (e->kind == kind && e->name_size == len && memcmp(e->name, name, len) == 0)
            return (int64_t)i;
    }
    return -1;
}

const wd_custom *wd_module_custom(const wd_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->custom_count; i++)
        if (strcmp(m->customs[i].name, name) == 0)
            return &m->customs[i];
    return NULL;
}

const char *wd_module_func_name(const wd_module *m, uint32_t idx, char *buf, size_t size)
{
    if (m->names.funcs != NULL && idx < m->func_count && m->names.funcs[idx] != NULL)
        return m->names.funcs[idx];
    /* without printf: every function a profile sees unnamed comes here */
    char text[16] = "func["; /* at most "func[4294967295]" */
    char digits[10];
    size_t n = 0, len = 5;
    do {
        digits[n++] = (char)('0' + idx % 10);
        idx /= 10;
    } while (idx != 0);
    while (n > 0)
        text[len++] = digits[--n];
    text[len++] = ']';
    if (size > 0) { /* cut to size, as snprintf would */
        size_t k = len < size ? len : size - 1;
        memcpy(buf, text, k);
        buf[k] = '\0';
    }
    return buf;
}

const char *wd_module_local_name(const wd_module *m, uint32_t func, uint32_t local)
{
    if (m->names.locals == NULL || func >= m->func_count || m->names.locals[func] == NULL)
        return NULL;
    const wd_local_name *names = m->names.locals[func];
    uint32_t lo = 0, hi = m->names.local_counts[func];
    while (lo < hi) { /* sorted by index */
        uint32_t mid = lo + (hi - lo) / 2;
        if (names[mid].idx < local)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->names.local_counts[func] && names[lo].idx == local ? names[lo].name : NULL;
}
