/* numarg.c: the numbers given to command-line options (numarg.h). */
#include "cli/numarg.h"

wd_status wd_numarg_u64(const char *option, const char *text, uint64_t min, uint64_t max,
                        uint64_t *out, wd_error *err)
{
    uint64_t v = 0;
    bool ok = text != NULL && text[0] != '\0';
    for (const char *p = text; ok && *p != '\0'; p++) {
        unsigned d = (unsigned)(*p - '0');
        ok = d <= 9 && v <= (UINT64_MAX - d) / 10;
        v = v * 10 + d;
    }
    if (ok && v >= min && v <= max) {
        *out = v;
        return WD_OK;
    }
    const char *got = text == NULL || text[0] == '\0' ? "nothing" : text;
    if (max == UINT64_MAX && min == 0)
        return wd_fail(err, WD_ERR_USAGE, 0, "%s: expected a whole number, got %.60s", option, got);
    if (max == UINT64_MAX)
        return wd_fail(err, WD_ERR_USAGE, 0,
                       "%s: expected a whole number of at least %llu, got %.60s", option,
                       (unsigned long long)min, got);
    return wd_fail(err, WD_ERR_USAGE, 0, "%s: expected a whole number from %llu to %llu, got %.60s",
                   option, (unsigned long long)min, (unsigned long long)max, got);
}

wd_status wd_numarg_u32(const char *option, const char *text, uint32_t min, uint32_t max,
                        uint32_t *out, wd_error *err)
{
    uint64_t v;
    WD_TRY(wd_numarg_u64(option, text, min, max, &v, err));
    *out = (uint32_t)v;
    return WD_OK;
}
