#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

wd_status wd_fail(wd_error *err, wd_status status, size_t offset, const char *fmt, ...)
{
    if (err == NULL || err->status != WD_OK)
        return status;
    err->status = status;
    err->offset = offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return status;
}

wd_status wd_fail_trap(wd_error *err, wd_trap kind, size_t offset)
{
    if (err != NULL && err->status == WD_OK)
        err->trap = kind;
    return wd_fail(err, WD_TRAP, offset, "%s", wd_trap_message(kind));
}

void wd_error_clear(wd_error *err)
{
    memset(err, 0, sizeof *err);
    err->func_idx = UINT32_MAX;
}

const char *wd_trap_message(wd_trap kind)
{
    static const char *const msgs[WD_TRAP_COUNT] = {
        [WD_TRAP_NONE] = "no trap",
        [WD_TRAP_UNREACHABLE] = "unreachable",
        [WD_TRAP_MEMORY_OOB] = "out of bounds memory access",
        [WD_TRAP_DIV_ZERO] = "integer divide by zero",
        [WD_TRAP_INT_OVERFLOW] = "integer overflow",
        [WD_TRAP_INVALID_CONVERSION] = "invalid conversion to integer",
        [WD_TRAP_UNDEFINED_ELEMENT] = "undefined element",
        [WD_TRAP_UNINITIALIZED_ELEMENT] = "uninitialized element",
        [WD_TRAP_INDIRECT_TYPE_MISMATCH] = "indirect call type mismatch",
        [WD_TRAP_TABLE_OOB] = "out of bounds table access",
        [WD_TRAP_HOST] = "host trap",
    };
    return (unsigned)kind < WD_TRAP_COUNT ? msgs[kind] : "unknown trap";
}

const char *wd_status_name(wd_status st)
{
    switch (st) {
    case WD_OK: return "ok";
    case WD_ERR_MALFORMED: return "malformed";
    case WD_ERR_INVALID: return "invalid";
    case WD_ERR_UNLINKABLE: return "unlinkable";
    case WD_ERR_UNINSTANTIABLE: return "uninstantiable";
    case WD_TRAP: return "trap";
    case WD_EXHAUSTED: return "exhausted";
    case WD_OUT_OF_TICKS: return "out of ticks";
    case WD_PAUSED: return "paused";
    case WD_ERR_NOMEM: return "out of memory";
    case WD_ERR_IO: return "i/o error";
    case WD_ERR_USAGE: return "usage error";
    }
    return "unknown status";
}
