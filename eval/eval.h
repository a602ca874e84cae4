/* eval.h: the interpreter. A thread runs one invocation at a time on an explicit frame
 * stack (wasm-to-wasm calls never recurse in C), metered in ticks: it can stop exactly at
 * a tick limit, single-step, be inspected while paused, and resume. */
#ifndef WD_EVAL_EVAL_H
#define WD_EVAL_EVAL_H

#include "base/costs.h"
#include "eval/hooks.h"
#include "link/runtime.h"

typedef struct wd_frame {
    wd_func *func;        /* the wasm function running in this frame */
    const wd_insn *ip;    /* where it resumes (for the top frame: saved by SYNC) */
    wd_val *fp;           /* its slot 0 */
    const wd_insn *base;  /* func->code->insns, for the interpreter's returns */
} wd_frame;

enum { WD_THREAD_IDLE, WD_THREAD_PAUSED };

struct wd_thread {
    wd_ctx *ctx;
    wd_val *stack;        /* value stack */
    size_t stack_slots;
    wd_frame *frames;     /* frames[0 .. frame_count) */
    uint32_t frame_count;
    uint32_t max_frames;  /* call-depth limit: one more is "call stack exhausted" */

    uint64_t ticks;       /* ticks charged so far (exact at every observable event) */
    uint64_t tick_limit;  /* execution never charges past it: stops with WD_OUT_OF_TICKS */
    const wd_costs *costs; /* dynamic costs (bulk bytes, grow pages); static ones are in code */
    const wd_hooks *hooks; /* NULL: none */
    uint32_t entry_open;  /* ticks the caller charged for an invocation before the reference
                           * profiler opens its entry's node: the entry hook fires that much
                           * earlier (the PVM's IK_Stop -> Eval tick) */
    bool single_step;     /* stop (WD_PAUSED) after every instruction */
    bool always_slow;     /* charge every instruction on its own (slow mode) without
                           * stopping: the determinism tests compare it with block charging */
    /* Read together (`brake`, non-zero for either) at every block boundary, so the fast
     * path tests one word: */
    union {
        volatile uint16_t brake;
        struct {
            volatile uint8_t pending; /* set asynchronously to make the thread stop
                                         (WD_PAUSED) at the next block boundary or call */
            volatile uint8_t slow;    /* the interpreter's: it is in its slow mode */
        };
    };

    int state;            /* WD_THREAD_IDLE or WD_THREAD_PAUSED (an invocation in flight) */
    /* The call stack when the last invocation trapped, was exhausted or had a host function
     * fail (outermost first; the top frame's ip at the faulting instruction, callers' at
     * their return address), kept for backtraces after the frames are unwound. */
    wd_frame *trap_frames;
    uint32_t trap_frame_count;
    const wd_functype *entry_type; /* type of the invocation in flight / last finished */
    void *eval_private;   /* interpreter bookkeeping (eval.c) */
};

/* Initialises a thread with room for `stack_slots` value slots and `max_frames` frames
 * (the PVM's default depth limit is 60,000). Ticks start at 0, limit UINT64_MAX. */
WD_NODISCARD wd_status wd_thread_init(wd_thread *t, wd_ctx *ctx, size_t stack_slots,
                                      uint32_t max_frames, const wd_costs *costs,
                                      wd_error *err);
void wd_thread_fini(wd_thread *t);

/* Calls `f` with `args` (its parameter slots). Returns:
 *   WD_OK: finished; results in wd_eval_results();
 *   WD_TRAP / WD_EXHAUSTED / host errors: the invocation is abandoned (thread idle again),
 *     err says where (func_idx, module offset);
 *   WD_OUT_OF_TICKS (the limit was reached exactly) or WD_PAUSED (single step, pending):
 *     the invocation is suspended; raise the limit or clear the flags and wd_eval_resume. */
WD_NODISCARD wd_status wd_eval_invoke(wd_thread *t, wd_func *f, const wd_val *args,
                                      wd_error *err);
WD_NODISCARD wd_status wd_eval_resume(wd_thread *t, wd_error *err);
/* Abandons a suspended invocation (the thread becomes idle). */
void wd_eval_abort(wd_thread *t);

/* The results of the invocation that last finished with WD_OK. */
const wd_val *wd_eval_results(const wd_thread *t);

/* For host functions: charges `ticks` extra to the running thread. */
void wd_eval_charge(wd_thread *t, uint64_t ticks);

/* The memory of the instance whose code called the running host function (NULL if none). */
wd_memory *wd_eval_caller_memory(wd_thread *t);

#endif
