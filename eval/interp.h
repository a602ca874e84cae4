/* interp.h: what eval.c (the public API) and interp.c (the interpreter loop) share.
 * Private to eval/. */
#ifndef WD_EVAL_INTERP_H
#define WD_EVAL_INTERP_H

#include "eval/eval.h"

/* t->eval_private. */
typedef struct wd_eval_state {
    /* Ticks a host function charged (wd_eval_charge) that are not paid yet. They are paid
     * right after the host function returns; when the budget cannot hold them, the thread
     * stops at the limit with the rest still owed, and pays it first on resume. The host
     * call ends (hook `ret`) when its debt is paid. */
    uint64_t debt;
    const wd_func *debt_func; /* the host function owing it */
    uint64_t end;             /* while running: the tick the budget ends at */
    bool running;             /* inside wd_eval_invoke / wd_eval_resume */
    bool in_host;             /* a host function is running */
} wd_eval_state;

/* Slots taken by `count` values of `types` (a v128 takes two). */
uint32_t wd_eval_type_slots(const uint8_t *types, uint32_t count);

/* Runs the suspended invocation of `t` (state PAUSED, frames set up) until it finishes,
 * traps or stops. Leaves the thread idle unless it returns WD_OUT_OF_TICKS or WD_PAUSED. */
WD_NODISCARD wd_status wd_interp_run(wd_thread *t, wd_error *err);

/* Pays as much of the outstanding host debt as the budget (up to tick `end`) allows, and
 * reports the end of the host call once it is paid. Returns false when some is still owed:
 * the thread is then at its limit. */
bool wd_interp_pay_debt(wd_thread *t, uint64_t end);

/* Calls host function `f` on `args` (its parameter slots, results written in place), then
 * pays what it charged (*paid false: the thread stopped at tick `end` with ticks owed).
 * On failure the call has ended (hook `ret` reported) and err holds the error. */
WD_NODISCARD wd_status wd_interp_call_host(wd_thread *t, wd_func *f, wd_val *args, uint64_t end,
                                           bool *paid, wd_error *err);

/* Reports the end of every open frame to the hooks (innermost first) and empties the frame
 * stack; the thread becomes idle. */
void wd_interp_unwind(wd_thread *t);

#endif
