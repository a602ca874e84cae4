/* feed.h: the profiler's events, applied on another thread.
 *
 * Each wd_prof event costs a hundred or more instructions (the tree, the stack, a calling-
 * context tree's hash) and touches memory that grows with the profile: done by the thread
 * that runs the kernel, they were most of what profiling added to a kernel run. A feed has
 * that thread only append each event to a chunk (24 bytes for a call or return); full
 * chunks go to a consumer thread, on the CPU the interpreter leaves idle, which applies the
 * events to the profiler in the same order. The profile is the one the events give applied
 * at once, byte for byte (tests/unit/prof_feed_test.c). Memory in flight is bounded: when
 * the consumer is WD_PROF_FEED_MAX_CHUNKS chunks behind, the producer waits for it.
 *
 * The thread starts when the first chunk (WD_PROF_FEED_CHUNK words) is full, so a profile
 * of a few thousand events never starts one. Without a thread (not asked for, one CPU, a
 * context other threads may not allocate beside, or no thread could be made) each full
 * chunk is applied where it was filled. Either way the profiler has every event once
 * wd_prof_feed_end returns, and not before: nothing may read it while events are sent.
 *
 * Symbols are interned through the feed: it returns its own ids (0, 1, 2, ...) at once, and
 * whoever applies the events maps them to the profiler's. While the feed runs, the
 * profiler and its wd_ctx belong to the consumer; the producer touches them again after
 * wd_prof_feed_end. The feed allocates from the context it is given (the producer's). */
#ifndef WD_PROFILER_FEED_H
#define WD_PROFILER_FEED_H

#include "eval/hooks.h"
#include "profiler/prof.h"

/* A chunk wakes the consumer once: 16 KiB chunks (tx-kernel-no-verif: 32 of them) made
 * profiles 0.3-0.5 ms longer than 64 KiB ones (paired medians of 60 rounds); 128 KiB left a
 * longer last chunk for the end (+0.5 ms). */
#define WD_PROF_FEED_CHUNK 8192      /* words (64 KiB): about 2,700 calls or returns */
#define WD_PROF_FEED_MAX_CHUNKS 16   /* in flight: 1 MiB */

typedef struct wd_prof_feed_chunk wd_prof_feed_chunk;
typedef struct wd_prof_feed_shared wd_prof_feed_shared;

/* the codes of the inline events: the packed calls and returns of prof.h, which are the
 * interpreter's records (eval/hooks.h) */
enum { WD_PROF_FEED_CALL = WD_PROF_PACKED_CALL, WD_PROF_FEED_RET = WD_PROF_PACKED_RET };
_Static_assert((int)WD_PROF_FEED_CALL == (int)WD_HOOK_REC_CALL &&
                   (int)WD_PROF_FEED_RET == (int)WD_HOOK_REC_RET,
               "the feed's calls and returns are the interpreter's records");

typedef struct wd_prof_feed {
    wd_ctx *ctx; /* the producer's */
    wd_prof *prof;
    bool started, failed, ended; /* started: the consumer thread runs */
    bool took_back; /* wd_prof_feed_end found the consumer idle and applied the rest here */
    bool end_sent;  /* by wd_prof_feed_end_tree */
    /* the producer's chunk: words out.w..out.end free. The interpreter may append calls
     * and returns to it itself (eval/hooks.h, wd_hook_records; cli/profhook.c). */
    wd_prof_feed_chunk *cur;
    wd_hook_records out;
    /* the raw names of the feed's symbols, by feed id */
    char **names;
    uint32_t name_count, name_cap;
    /* feed id -> profiler symbol (whoever applies the events owns it) */
    uint32_t *map;
    uint32_t map_count, map_cap;
    wd_prof_feed_shared *sh; /* what the two threads share (feed.c); NULL: no thread */
    void (*on_start)(void *); /* wd_prof_feed_on_start */
    void *on_start_arg;
    bool (*on_idle)(void *); /* wd_prof_feed_on_idle */
    void *on_idle_arg;
} wd_prof_feed;

/* `prof` is borrowed. A thread may be used only when asked (`threaded`), when the machine
 * has two CPUs or more and `ctx` may be used beside the profiler's (wd_ctx_forkable, and
 * not the same context). */
void wd_prof_feed_init(wd_prof_feed *f, wd_ctx *ctx, wd_prof *prof, bool threaded);
/* A job for the consumer thread, done as it starts, before it applies events (so beside the
 * kernel, on the CPU the interpreter leaves idle), when there is such a thread: only when the
 * events fill more than one chunk and init allowed a thread. The caller sees whether it was
 * done once wd_prof_feed_end or wd_prof_feed_fini returned. It must not touch the profiler
 * nor allocate from a context the threads use. Call before the first event. */
void wd_prof_feed_on_start(wd_prof_feed *f, void (*fn)(void *), void *arg);
/* Work for the consumer thread when it has applied every chunk published, until it applies
 * the end (wd_prof_feed_end, _end_tree): fn(arg) does a slice of it (tens of microseconds: the
 * chunks published meanwhile, the end among them, wait for it) and returns whether there is
 * more to do now; it may read the profiler and allocate from its context, which that thread
 * owns then (profiler/output.h, wd_prof_files_stream). Call before the first event. */
void wd_prof_feed_on_idle(wd_prof_feed *f, bool (*fn)(void *), void *arg);
/* Hands the events written so far to the consumer thread now, when one runs (else nothing):
 * after a kernel run's report, so that it can write the run out (wd_prof_files_stream)
 * rather than when the chunk is full. */
void wd_prof_feed_publish(wd_prof_feed *f);
/* Frees what is left (after wd_prof_feed_end, or instead of it: events not applied are
 * dropped). */
void wd_prof_feed_fini(wd_prof_feed *f);

/* wd_prof_symbol through the feed: the feed's id for it (UINT32_MAX on allocation failure). */
uint32_t wd_prof_feed_symbol(wd_prof_feed *f, wd_prof_kind kind, uint32_t idx,
                             const char *name, size_t size);
/* The raw name a feed id was interned with ("" for UINT32_MAX). */
const char *wd_prof_feed_symbol_raw(const wd_prof_feed *f, uint32_t id);

/* Room for `count` words of the next event (a new chunk when the current one is full);
 * NULL when the feed has failed (events are then dropped and wd_prof_status reports it). */
uint64_t *wd_prof_feed_room(wd_prof_feed *f, size_t count);

/* A call or a return: its three words. */
static inline void wd_prof_feed_put3(wd_prof_feed *f, uint64_t head, uint64_t ticks, int64_t ns)
{
    uint64_t *w = f->out.w;
    if (WD_UNLIKELY(f->out.end - w < 3) && (w = wd_prof_feed_room(f, 3)) == NULL)
        return;
    w[0] = head;
    w[1] = ticks;
    w[2] = (uint64_t)ns;
    f->out.w = w + 3;
}

static inline void wd_prof_feed_call(wd_prof_feed *f, uint64_t ticks, int64_t ns, uint32_t id)
{
    wd_prof_feed_put3(f, WD_PROF_FEED_CALL | (uint64_t)id << 8, ticks, ns);
}

static inline void wd_prof_feed_ret(wd_prof_feed *f, uint64_t ticks, int64_t ns)
{
    wd_prof_feed_put3(f, WD_PROF_FEED_RET, ticks, ns);
}

/* The other events of prof.h, through the feed (strings are copied). */
void wd_prof_feed_phase(wd_prof_feed *f, uint64_t ticks, int64_t ns, const char *name,
                        bool begin);
void wd_prof_feed_step(wd_prof_feed *f, uint64_t ticks, uint64_t cost, const char *what,
                       uint64_t operand);
void wd_prof_feed_level(wd_prof_feed *f, uint32_t level);
void wd_prof_feed_stop(wd_prof_feed *f, int64_t ns);
void wd_prof_feed_run_info(wd_prof_feed *f, const wd_prof_run_info *info);
void wd_prof_feed_time_unit(wd_prof_feed *f, double ns_per_unit);
/* Whether every chunk handed to the consumer has been applied (true without a thread). */
bool wd_prof_feed_caught_up(wd_prof_feed *f);
/* wd_prof_end through the feed, then waits until every event is applied: the profiler is
 * the caller's again. Events after it are dropped (the returns of a run unwound when the
 * PVM is freed, say): the profile is over. After wd_prof_feed_end_tree (which sent the end),
 * waits for the figures only, and returns true when the consumer took the job given there:
 * it runs it now, and wd_prof_feed_join waits for it. False otherwise (the job is not run). */
bool wd_prof_feed_end(wd_prof_feed *f, uint64_t ticks);
/* The end's first step when a consumer thread applies the events (false, and nothing done,
 * otherwise: no thread, a failure, ended already): sends the end and waits until the
 * consumer has completed the tree (wd_prof_end_tree). The consumer then computes the
 * figures (wd_prof_end_finish) and, when the profile is sound, runs after(arg) (if not
 * NULL), which may read the finished profile but not change it nor allocate from its
 * context. Until wd_prof_feed_end, which must follow, the caller may read the tree's shape,
 * self ticks and symbols, and nothing else, allocating from a context of its own
 * (wd_prof_files_write_ahead). On tx-kernel-no-verif the calling thread waited 0.25-0.65
 * ms for the last events and the figures when the end was one step. */
bool wd_prof_feed_end_tree(wd_prof_feed *f, uint64_t ticks, void (*after)(void *), void *arg);
/* Waits for the consumer thread to end (after wd_prof_feed_end: the job it took done). */
void wd_prof_feed_join(wd_prof_feed *f);

#endif
