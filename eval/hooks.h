/* hooks.h: the event interface between the engine and its listeners (the profiler, the
 * debugger). eval/ reports calls and returns; vm/ reports phases. A thread with no hooks
 * pays one predictable branch per call and return, nothing per instruction. Listeners
 * include only this header and base/. */
#ifndef WD_EVAL_HOOKS_H
#define WD_EVAL_HOOKS_H

#include "base/base.h"

typedef enum wd_call_kind {
    WD_CALL_ENTRY,    /* the function an invocation starts with */
    WD_CALL_DIRECT,   /* `call` */
    WD_CALL_INDIRECT, /* `call_indirect`, resolved to the function actually called */
    WD_CALL_HOST,     /* a host function (called by `call` or `call_indirect`) */
} wd_call_kind;

struct wd_func; /* link/runtime.h */

typedef struct wd_hooks {
    void *ud;
    /* A call starts; `ticks` is the thread's counter after charging the call instruction. */
    void (*call)(void *ud, uint64_t ticks, const struct wd_func *callee, wd_call_kind kind);
    /* The current call ends: by returning, or by a trap or exhaustion unwinding it. */
    void (*ret)(void *ud, uint64_t ticks, const struct wd_func *callee);
    /* A phase or internal step begins (begin=true) or ends (vm/ reports these). */
    void (*phase)(void *ud, uint64_t ticks, const char *name, bool begin);
    /* Optional (may be NULL): an instruction with a dynamic cost (memory.fill/copy/init,
     * table.fill/copy/init, memory.grow) was charged `cost` ticks for `operand` bytes,
     * elements or pages; `what` is its text name, `ticks` the counter after it (within its
     * basic block: exact to the block). Reported only when hooks are set. */
    void (*big_step)(void *ud, uint64_t ticks, uint64_t cost, const char *what, uint64_t operand);
} wd_hooks;

#endif
