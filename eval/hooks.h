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

/* Records: where the interpreter may append calls and returns itself instead of calling
 * `call` and `ret` (the free words w..end of a listener's buffer). Three words each:
 *   WD_HOOK_REC_CALL | tag << 8, ticks, clock     a call by `call` or `call_indirect`
 *   WD_HOOK_REC_RET, ticks, clock                 a wasm function returns
 * where ticks is what the hook would have been given, and clock the fast clock's reading
 * less records_c0 when records_timed, else 0 (base/clock.h). A call is recorded only when
 * its callee carries a tag of this listener for that kind of call (wd_func.hook_gen ==
 * records_gen, hook_tag[kind - WD_CALL_DIRECT] not UINT32_MAX), which the listener sets
 * when its `call` hears the first one; any event is recorded only while 3 words are free.
 * The others go to the hooks as ever, so the listener sees one stream in order. */
enum { WD_HOOK_REC_CALL = 1, WD_HOOK_REC_RET = 2 };

typedef struct wd_hook_records {
    uint64_t *w, *end;
} wd_hook_records;

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
    /* Optional (NULL: every call and return through the hooks): see wd_hook_records. */
    wd_hook_records *records;
    uint32_t records_gen; /* not 0 */
    bool records_timed;
    uint64_t records_c0;
} wd_hooks;

#endif
