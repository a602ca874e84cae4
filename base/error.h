/* error.h: statuses, trap kinds and the error record every fallible function fills. */
#ifndef WD_BASE_ERROR_H
#define WD_BASE_ERROR_H

#include "base/base.h"

/* Classes follow the spec's assertion kinds. */
typedef enum wd_status {
    WD_OK = 0,
    WD_ERR_MALFORMED,      /* binary format error (assert_malformed) */
    WD_ERR_INVALID,        /* validation error (assert_invalid) */
    WD_ERR_UNLINKABLE,     /* import resolution failed (assert_unlinkable) */
    WD_ERR_UNINSTANTIABLE, /* instantiation trapped (assert_uninstantiable) */
    WD_TRAP,               /* a runtime trap; kind in err->trap */
    WD_EXHAUSTED,          /* call stack exhausted (assert_exhaustion) */
    WD_OUT_OF_TICKS,       /* the tick budget ran out: a pause, resumable */
    WD_PAUSED,             /* stopped by a step, breakpoint or hook request: resumable */
    WD_ERR_NOMEM,
    WD_ERR_IO,
    WD_ERR_USAGE,
} wd_status;

/* Trap kinds, with the spec's messages (wd_trap_message). */
typedef enum wd_trap {
    WD_TRAP_NONE = 0,
    WD_TRAP_UNREACHABLE,            /* "unreachable" */
    WD_TRAP_MEMORY_OOB,             /* "out of bounds memory access" */
    WD_TRAP_DIV_ZERO,               /* "integer divide by zero" */
    WD_TRAP_INT_OVERFLOW,           /* "integer overflow" */
    WD_TRAP_INVALID_CONVERSION,     /* "invalid conversion to integer" */
    WD_TRAP_UNDEFINED_ELEMENT,      /* "undefined element" */
    WD_TRAP_UNINITIALIZED_ELEMENT,  /* "uninitialized element" */
    WD_TRAP_INDIRECT_TYPE_MISMATCH, /* "indirect call type mismatch" */
    WD_TRAP_TABLE_OOB,              /* "out of bounds table access" */
    WD_TRAP_HOST,                   /* a host function trapped; details in msg */
    WD_TRAP_COUNT
} wd_trap;

typedef struct wd_error {
    wd_status status;
    wd_trap trap;      /* meaningful when status == WD_TRAP */
    uint32_t func_idx; /* UINT32_MAX outside any function */
    size_t offset;     /* byte offset in the module */
    char msg[192];
} wd_error;

/* Records a failure unless one is already recorded (the first error wins) and returns
 * `status`. Every failure goes through here: one gdb breakpoint catches all of them. */
WD_NOINLINE wd_status wd_fail(wd_error *err, wd_status status, size_t offset, const char *fmt, ...)
    WD_PRINTF(4, 5);

/* Records a trap of `kind` with its spec message; returns WD_TRAP. */
WD_NOINLINE wd_status wd_fail_trap(wd_error *err, wd_trap kind, size_t offset);

/* Forgets any recorded error, so the record can be reused. */
void wd_error_clear(wd_error *err);

const char *wd_trap_message(wd_trap kind);
const char *wd_status_name(wd_status st);

#define WD_TRY(call)                                                                               \
    do {                                                                                           \
        wd_status wd_try_st_ = (call);                                                             \
        if (wd_try_st_ != WD_OK)                                                                   \
            return wd_try_st_;                                                                     \
    } while (0)

#endif
