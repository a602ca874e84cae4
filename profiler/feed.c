/* feed.c: the profiler's events, applied on another thread (feed.h).
 *
 * Events are words in chunks. A call or a return is 3 words (code and symbol, ticks, ns);
 * the rare events carry their fields and then their string, NUL-terminated and padded to
 * whole words. The producer fills a chunk and publishes it; the consumer applies published
 * chunks in order and hands them back for reuse. */
#include "profiler/feed.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "base/clock.h"
#include "base/thread.h"
#include "profiler/prof_priv.h"

struct wd_prof_feed_chunk {
    wd_prof_feed_chunk *next;
    size_t cap, used; /* words */
    uint64_t w[];
};

struct wd_prof_feed_shared {
    pthread_mutex_t mu; /* guards the rest */
    pthread_cond_t has_data, has_room;
    wd_prof_feed_chunk *head, *tail; /* published, oldest first */
    wd_prof_feed_chunk *spare;       /* applied, for reuse */
    uint32_t in_flight;              /* published and not yet applied */
    bool done;
    bool consumer_failed;
    /* the end in two steps (wd_prof_feed_end_tree): set before the end is published */
    bool split_end;
    void (*after)(void *); /* the job run after the figures, and its argument */
    void *after_arg;
    /* ... and what the consumer tells of it */
    bool tree_ok;     /* the tree complete and the profile sound (from STAGE_TREE on) */
    bool after_taken; /* `after` runs on the consumer (from STAGE_FIN on) */
    /* How far the end has gone: STAGE_TREE the tree complete, STAGE_FIN the figures too,
     * STAGE_GONE the thread returns. Stored (with the lock held but for STAGE_GONE) after
     * what it announces, and read by waits that spin without the lock (spin_until). */
    atomic_int stage;
    wd_thread thread;
};

enum { STAGE_TREE = 1, STAGE_FIN, STAGE_GONE };

enum { OP_SYMBOL = 3, OP_PHASE, OP_STEP, OP_LEVEL, OP_RUN, OP_UNIT, OP_END, OP_STOP, OP_FRAME };

/* ---- the consumer's side ---------------------------------------------------------------- */

/* The map is allocated from the profiler's context, which only the thread that applies
 * events uses while the feed runs. */
static bool map_add(wd_prof_feed *f, uint32_t sym)
{
    if (f->map_count == f->map_cap &&
        !wd_grow(f->prof->ctx, (void **)&f->map, &f->map_cap, sizeof *f->map,
                 (uint64_t)f->map_count + 1))
        return false;
    f->map[f->map_count++] = sym;
    return true;
}

/* The string of an event of `fixed` words (put_str), and the words after the event. */
static const char *str_at(const uint64_t *w, size_t fixed)
{
    return (const char *)(w + fixed);
}

static const uint64_t *after_str(const uint64_t *w, size_t fixed)
{
    return w + fixed + w[fixed - 1] / 8 + 1;
}

/* The end in two steps (wd_prof_feed_end_tree): the tree, announced to the producer, which
 * then reads it; the figures; then the producer's job, taken (and announced) only when the
 * profile is sound and its figures computed. */
static void end_split(wd_prof_feed *f, uint64_t ticks)
{
    wd_prof_feed_shared *sh = f->sh;
    wd_prof *p = f->prof;
    bool more = wd_prof_end_tree(p, ticks);
    pthread_mutex_lock(&sh->mu);
    sh->tree_ok = more && p->status == WD_OK;
    atomic_store_explicit(&sh->stage, STAGE_TREE, memory_order_release);
    pthread_cond_broadcast(&sh->has_room);
    pthread_mutex_unlock(&sh->mu);
    if (more)
        wd_prof_end_finish(p, ticks);
    pthread_mutex_lock(&sh->mu);
    bool run = sh->after != NULL && p->status == WD_OK && p->fin;
    sh->after_taken = run;
    atomic_store_explicit(&sh->stage, STAGE_FIN, memory_order_release);
    pthread_cond_broadcast(&sh->has_room);
    pthread_mutex_unlock(&sh->mu);
    if (run) /* the profile is the producer's again: the job only reads it */
        sh->after(sh->after_arg);
}

/* Applies the events of words w..end to the profiler; false on allocation failure. */
static bool apply(wd_prof_feed *f, const uint64_t *w, const uint64_t *end)
{
    wd_prof *p = f->prof;
    while (w < end) {
        uint64_t h = w[0];
        switch (h & 0xff) {
        case WD_PROF_FEED_CALL:
        case WD_PROF_FEED_RET: /* with those that follow, at once */
            w += wd_prof_packed(p, w, (size_t)(end - w), f->map, f->map_count);
            break;
        case OP_SYMBOL: /* kind, idx; size; name */
            if (!map_add(f, wd_prof_symbol(p, (wd_prof_kind)(h >> 8 & 0xff),
                                           (uint32_t)(h >> 32), str_at(w, 2), w[1])))
                return false;
            w = after_str(w, 2);
            break;
        case OP_PHASE: /* begin; ticks, ns, size, name */
            wd_prof_phase(p, w[1], (int64_t)w[2], str_at(w, 4), (h >> 8 & 1) != 0);
            w = after_str(w, 4);
            break;
        case OP_STEP: /* ticks, cost, operand, size, what */
            wd_prof_step(p, w[1], w[2], str_at(w, 5), w[3]);
            w = after_str(w, 5);
            break;
        case OP_LEVEL:
            wd_prof_level(p, (uint32_t)(h >> 32));
            w += 1;
            break;
        case OP_STOP: /* ns */
            wd_prof_stop(p, (int64_t)w[1]);
            w += 2;
            break;
        case OP_RUN: { /* outcome, reboot; level, index; start, effective, ns, size, reason */
            wd_prof_run_info info = {
                .level = (uint32_t)w[1], .index = (uint32_t)(w[1] >> 32),
                .start = w[2], .effective = w[3],
                .outcome = (wd_prof_outcome)(h >> 8 & 0xff), .reboot = (h >> 16 & 1) != 0,
                .reason = str_at(w, 6), .ns = (int64_t)w[4]};
            wd_prof_run_info_add(p, &info);
            w = after_str(w, 6);
            break;
        }
        case OP_FRAME: { /* has file; func_idx, offset; line, more; size, "function\0file" */
            const char *name = str_at(w, 4);
            wd_prof_frame fr = {.function = name, .func_idx = (uint32_t)w[1],
                                .offset = (uint32_t)(w[1] >> 32), .line = (uint32_t)w[2],
                                .file = (h >> 8 & 1) != 0 ? name + strlen(name) + 1 : NULL};
            wd_prof_run_frame(p, &fr, (uint32_t)(w[2] >> 32));
            w = after_str(w, 4);
            break;
        }
        case OP_UNIT: {
            double unit;
            memcpy(&unit, &w[1], sizeof unit);
            wd_prof_time_unit(p, unit);
            w += 2;
            break;
        }
        default: /* OP_END */
            WD_ASSERT((h & 0xff) == OP_END);
            if (f->sh != NULL && f->sh->split_end) /* set before the end was published */
                end_split(f, w[1]);
            else
                wd_prof_end(p, w[1]);
            w += 2;
            break;
        }
    }
    return true;
}

static void *consume(void *arg)
{
    wd_prof_feed *f = arg;
    wd_prof_feed_shared *sh = f->sh;
    bool ok = true;
    if (f->on_start != NULL)
        f->on_start(f->on_start_arg);
    pthread_mutex_lock(&sh->mu);
    for (;;) {
        /* idle work between chunks, the lock released; the wait only once it is done, after
         * the queue is checked again under the lock (a chunk published meanwhile was
         * signalled to no one) */
        bool idle = ok && f->on_idle != NULL;
        while (sh->head == NULL && !sh->done) {
            if (idle && !f->prof->ended) {
                pthread_mutex_unlock(&sh->mu);
                idle = f->on_idle(f->on_idle_arg);
                pthread_mutex_lock(&sh->mu);
                continue;
            }
            pthread_cond_wait(&sh->has_data, &sh->mu);
        }
        wd_prof_feed_chunk *c = sh->head;
        if (c == NULL)
            break;
        sh->head = c->next;
        if (sh->head == NULL)
            sh->tail = NULL;
        pthread_mutex_unlock(&sh->mu);
        if (ok)
            ok = apply(f, c->w, c->w + c->used);
        pthread_mutex_lock(&sh->mu);
        c->next = sh->spare;
        sh->spare = c;
        sh->in_flight--;
        sh->consumer_failed = !ok;
        pthread_cond_signal(&sh->has_room);
    }
    pthread_mutex_unlock(&sh->mu);
    atomic_store_explicit(&sh->stage, STAGE_GONE, memory_order_release);
    return NULL;
}

/* ---- the producer's side ---------------------------------------------------------------- */

void wd_prof_feed_init(wd_prof_feed *f, wd_ctx *ctx, wd_prof *prof, bool threaded)
{
    memset(f, 0, sizeof *f);
    f->ctx = ctx;
    f->prof = prof;
    if (!threaded || ctx == prof->ctx || !wd_ctx_forkable(ctx) || !wd_ctx_forkable(prof->ctx))
        return;
    f->sh = wd_calloc(ctx, 1, sizeof *f->sh);
    if (f->sh == NULL)
        return; /* no thread, then */
    pthread_mutex_init(&f->sh->mu, NULL);
    pthread_cond_init(&f->sh->has_data, NULL);
    pthread_cond_init(&f->sh->has_room, NULL);
    atomic_init(&f->sh->stage, 0);
}

static void free_chunks(wd_ctx *ctx, wd_prof_feed_chunk *c)
{
    while (c != NULL) {
        wd_prof_feed_chunk *next = c->next;
        wd_free(ctx, c);
        c = next;
    }
}

/* Tells the consumer to stop once it has applied what was published; with `if_idle`, only
 * when it already has (it waits for the next chunk), and false, changing nothing, while it
 * applies one. Either way the thread is joined by unthread; stopped idle, the profiler is
 * this thread's again at once, before the consumer, woken (a wake-up across CPUs costs tens
 * of microseconds here), sees it is done. */
static bool stop_consumer(wd_prof_feed *f, bool if_idle)
{
    wd_prof_feed_shared *sh = f->sh;
    pthread_mutex_lock(&sh->mu);
    bool stop = !if_idle || sh->in_flight == 0;
    if (stop) {
        sh->done = true;
        f->failed = f->failed || sh->consumer_failed;
        pthread_cond_signal(&sh->has_data);
    }
    pthread_mutex_unlock(&sh->mu);
    return stop;
}

/* Stops the consumer (after it applied what was published) and frees what the threads
 * shared: full chunks are applied here from now on. */
static void unthread(wd_prof_feed *f)
{
    wd_prof_feed_shared *sh = f->sh;
    if (sh == NULL)
        return;
    if (f->started) {
        wd_thread_release(&sh->thread); /* this CPU is about to be free */
        (void)stop_consumer(f, false);
        wd_thread_join(&sh->thread);
        f->started = false;
        f->failed = f->failed || sh->consumer_failed;
    }
    free_chunks(f->ctx, sh->head);
    free_chunks(f->ctx, sh->spare);
    pthread_mutex_destroy(&sh->mu);
    pthread_cond_destroy(&sh->has_data);
    pthread_cond_destroy(&sh->has_room);
    wd_free(f->ctx, sh);
    f->sh = NULL;
}

void wd_prof_feed_on_idle(wd_prof_feed *f, bool (*fn)(void *), void *arg)
{
    f->on_idle = fn;
    f->on_idle_arg = arg;
}

void wd_prof_feed_on_start(wd_prof_feed *f, void (*fn)(void *), void *arg)
{
    f->on_start = fn;
    f->on_start_arg = arg;
}

void wd_prof_feed_fini(wd_prof_feed *f)
{
    unthread(f);
    free_chunks(f->ctx, f->cur);
    f->cur = NULL;
    f->out.w = f->out.end = NULL;
    for (uint32_t i = 0; i < f->name_count; i++)
        wd_free(f->ctx, f->names[i]);
    wd_free(f->ctx, f->names);
    f->names = NULL;
    f->name_count = 0;
    /* the map is allocated from the profiler's context (map_add) */
    wd_free(f->prof->ctx, f->map);
    f->map = NULL;
}

static void fail(wd_prof_feed *f)
{
    f->failed = true;
    f->out.w = f->out.end = NULL;
}

/* Applies the current chunk's events on this thread (no consumer runs) and empties it. */
static void apply_here(wd_prof_feed *f)
{
    if (f->cur != NULL && !f->failed && !apply(f, f->cur->w, f->out.w))
        fail(f);
    if (f->cur != NULL)
        f->out.w = f->cur->w;
}

/* A chunk of at least `count` words: a spare one, or a new one. */
static wd_prof_feed_chunk *take(wd_prof_feed *f, size_t count)
{
    wd_prof_feed_chunk *c = NULL;
    if (f->started) {
        pthread_mutex_lock(&f->sh->mu);
        if (f->sh->in_flight >= WD_PROF_FEED_MAX_CHUNKS)
            wd_thread_release(&f->sh->thread); /* behind: let it use this CPU too */
        while (f->sh->in_flight >= WD_PROF_FEED_MAX_CHUNKS)
            pthread_cond_wait(&f->sh->has_room, &f->sh->mu);
        c = f->sh->spare;
        if (c != NULL)
            f->sh->spare = c->next;
        pthread_mutex_unlock(&f->sh->mu);
    }
    if (c != NULL && c->cap < count) {
        wd_free(f->ctx, c);
        c = NULL;
    }
    if (c == NULL) {
        size_t cap = count > WD_PROF_FEED_CHUNK ? count : WD_PROF_FEED_CHUNK;
        c = wd_alloc(f->ctx, sizeof *c + cap * sizeof c->w[0]);
        if (c == NULL)
            return NULL;
        c->cap = cap;
    }
    c->next = NULL;
    c->used = 0;
    return c;
}

/* Hands the current chunk to the consumer (started on the first one), or applies it here
 * and keeps it when there is no thread. */
static void publish(wd_prof_feed *f)
{
    if (f->sh != NULL && !f->started) { /* one CPU: no thread (a profile of one chunk never asks) */
        f->started = wd_cpu_count() >= 2 && wd_thread_start_apart(&f->sh->thread, consume, f);
        if (!f->started)
            unthread(f);
    }
    if (f->sh == NULL) {
        apply_here(f);
        return;
    }
    wd_prof_feed_chunk *c = f->cur;
    f->cur = NULL;
    c->used = (size_t)(f->out.w - c->w);
    pthread_mutex_lock(&f->sh->mu);
    if (f->sh->tail != NULL)
        f->sh->tail->next = c;
    else
        f->sh->head = c;
    f->sh->tail = c;
    f->sh->in_flight++;
    pthread_cond_signal(&f->sh->has_data);
    pthread_mutex_unlock(&f->sh->mu);
}

uint64_t *wd_prof_feed_room(wd_prof_feed *f, size_t count)
{
    if (f->failed || f->ended || f->end_sent)
        return NULL;
    if (f->cur != NULL && (size_t)(f->out.end - f->out.w) >= count)
        return f->out.w;
    if (f->cur != NULL && f->out.w != f->cur->w)
        publish(f);
    if (f->cur != NULL && f->cur->cap < count) { /* an event larger than a chunk */
        wd_free(f->ctx, f->cur);
        f->cur = NULL;
    }
    if (f->cur == NULL) {
        f->cur = take(f, count);
        if (f->cur == NULL) {
            fail(f);
            return NULL;
        }
    }
    f->out.w = f->cur->w;
    f->out.end = f->cur->w + f->cur->cap;
    return f->out.w;
}

/* `count` words for the next event, taken (NULL when the feed has failed). */
static uint64_t *put(wd_prof_feed *f, size_t count)
{
    uint64_t *w = wd_prof_feed_room(f, count);
    if (w != NULL)
        f->out.w = w + count;
    return w;
}

/* An event of `fixed` words whose last is the size of the string that follows: `size`
 * bytes of s, NUL-terminated and padded to whole words. */
static uint64_t *put_str(wd_prof_feed *f, size_t fixed, const char *s, size_t size)
{
    size_t words = size / 8 + 1;
    uint64_t *w = put(f, fixed + words);
    if (w == NULL)
        return NULL;
    w[fixed - 1] = size;
    w[fixed + words - 1] = 0;
    memcpy(w + fixed, s, size);
    return w;
}

uint32_t wd_prof_feed_symbol(wd_prof_feed *f, wd_prof_kind kind, uint32_t idx,
                             const char *name, size_t size)
{
    if (f->name_count == f->name_cap &&
        !wd_grow(f->ctx, (void **)&f->names, &f->name_cap, sizeof *f->names,
                 (uint64_t)f->name_count + 1))
        return UINT32_MAX;
    char *copy = wd_strndup(f->ctx, name, size);
    if (copy == NULL)
        return UINT32_MAX;
    uint64_t *w = put_str(f, 2, name, size);
    if (w != NULL)
        w[0] = OP_SYMBOL | (uint64_t)kind << 8 | (uint64_t)idx << 32;
    f->names[f->name_count] = copy;
    return f->name_count++;
}

const char *wd_prof_feed_symbol_raw(const wd_prof_feed *f, uint32_t id)
{
    return id < f->name_count ? f->names[id] : "";
}

void wd_prof_feed_phase(wd_prof_feed *f, uint64_t ticks, int64_t ns, const char *name,
                        bool begin)
{
    uint64_t *w;
    if ((w = put_str(f, 4, name, strlen(name))) != NULL) {
        w[0] = OP_PHASE | (uint64_t)begin << 8;
        w[1] = ticks;
        w[2] = (uint64_t)ns;
    }
}

void wd_prof_feed_step(wd_prof_feed *f, uint64_t ticks, uint64_t cost, const char *what,
                       uint64_t operand)
{
    uint64_t *w;
    if ((w = put_str(f, 5, what, strlen(what))) != NULL) {
        w[0] = OP_STEP;
        w[1] = ticks;
        w[2] = cost;
        w[3] = operand;
    }
}

void wd_prof_feed_level(wd_prof_feed *f, uint32_t level)
{
    uint64_t *w;
    if ((w = put(f, 1)) != NULL)
        w[0] = OP_LEVEL | (uint64_t)level << 32;
}

void wd_prof_feed_stop(wd_prof_feed *f, int64_t ns)
{
    uint64_t *w;
    if ((w = put(f, 2)) != NULL) {
        w[0] = OP_STOP;
        w[1] = (uint64_t)ns;
    }
}

void wd_prof_feed_run_info(wd_prof_feed *f, const wd_prof_run_info *info)
{
    const char *reason = info->reason != NULL ? info->reason : "";
    uint64_t *w;
    if ((w = put_str(f, 6, reason, strlen(reason))) != NULL) {
        w[0] = OP_RUN | (uint64_t)info->outcome << 8 | (uint64_t)info->reboot << 16;
        w[1] = info->level | (uint64_t)info->index << 32;
        w[2] = info->start;
        w[3] = info->effective;
        w[4] = (uint64_t)info->ns;
    }
    for (uint32_t k = 0; k < info->frame_count; k++) {
        const wd_prof_frame *fr = &info->frames[k];
        const char *name = fr->function != NULL ? fr->function : "";
        char text[2048]; /* "function\0file", each cut at 1023 bytes */
        size_t n = strlen(name), m = fr->file != NULL ? strlen(fr->file) : 0;
        if (n > 1023)
            n = 1023;
        if (m > 1023)
            m = 1023;
        memcpy(text, name, n);
        text[n] = '\0';
        memcpy(text + n + 1, fr->file != NULL ? fr->file : "", m);
        if ((w = put_str(f, 4, text, n + 1 + m)) != NULL) {
            w[0] = OP_FRAME | (uint64_t)(fr->file != NULL) << 8;
            w[1] = fr->func_idx | (uint64_t)fr->offset << 32;
            w[2] = fr->line | (uint64_t)info->frames_more << 32;
        }
    }
}

void wd_prof_feed_publish(wd_prof_feed *f)
{
    if (!f->started || f->failed || f->cur == NULL || f->out.w == f->cur->w)
        return;
    publish(f);
    f->out.w = f->out.end = NULL; /* the next event takes a chunk (wd_prof_feed_room) */
}

void wd_prof_feed_time_unit(wd_prof_feed *f, double ns_per_unit)
{
    uint64_t *w;
    if ((w = put(f, 2)) != NULL) {
        w[0] = OP_UNIT;
        memcpy(&w[1], &ns_per_unit, sizeof ns_per_unit);
    }
}

bool wd_prof_feed_caught_up(wd_prof_feed *f)
{
    if (!f->started)
        return true;
    pthread_mutex_lock(&f->sh->mu);
    bool idle = f->sh->in_flight == 0;
    pthread_mutex_unlock(&f->sh->mu);
    return idle;
}

/* Waits (the lock held) until `cond` holds or the consumer, having failed, applies no more:
 * it then never will. */
#define WAIT_CONSUMER(sh, cond)                                                                    \
    while (!(cond) && !((sh)->consumer_failed && (sh)->in_flight == 0))                            \
        pthread_cond_wait(&(sh)->has_room, &(sh)->mu)

static bool reached(wd_prof_feed_shared *sh, int stage)
{
    return atomic_load_explicit(&sh->stage, memory_order_acquire) >= stage;
}

/* Whether the consumer reached `stage` within `ns`, this thread spinning (and yielding its
 * CPU to whatever else may run there, the consumer included, at each turn).
 *
 * At the end of a profile the consumer is most often caught up: the tree is complete some
 * 30 us after the end is sent. A wait on the condition variable instead gave this thread's
 * CPU up, and on this 2-vCPU VM being woken then took up to 3 ms (tx-kernel-no-verif in
 * make bench's runner: in 2 profiles of 5, the tree done 30 us after the end, this thread
 * back 0.4-3 ms later): an idle vCPU is halted, and the host resumes it when it can. So the
 * end's waits spin first, and sleep only after. They may: the consumer is kept off this CPU
 * (wd_thread_start_apart) until it is released, after the spin. A join that spins where the
 * joined thread may share the CPU slows it down instead (tried in wd_thread_join: decode's
 * wait for its worker, tx-kernel-no-verif, p90 145 -> 570 us over 60 runs). */
static bool spin_until(wd_prof_feed_shared *sh, int stage, int64_t ns)
{
    int64_t t0 = wd_clock_ns();
    while (!reached(sh, stage)) {
        if (wd_clock_ns() - t0 > ns)
            return false;
        sched_yield();
    }
    return true;
}

bool wd_prof_feed_end_tree(wd_prof_feed *f, uint64_t ticks, void (*after)(void *), void *arg)
{
    if (!f->started || f->failed || f->ended || f->end_sent)
        return false;
    wd_prof_feed_shared *sh = f->sh;
    uint64_t *w = put(f, 2);
    if (w == NULL)
        return false; /* failed: wd_prof_feed_end stops the consumer */
    w[0] = OP_END;
    w[1] = ticks;
    pthread_mutex_lock(&sh->mu);
    sh->split_end = true;
    sh->after = after;
    sh->after_arg = arg;
    pthread_mutex_unlock(&sh->mu);
    f->end_sent = true;
    publish(f);
    f->out.w = f->out.end = NULL; /* later events are dropped (wd_prof_feed_room) */
    if (spin_until(sh, STAGE_TREE, 200000))
        return sh->tree_ok; /* written before the stage, and no more */
    wd_thread_release(&sh->thread); /* behind: this CPU waits, then writes */
    pthread_mutex_lock(&sh->mu);
    WAIT_CONSUMER(sh, reached(sh, STAGE_TREE));
    bool ok = reached(sh, STAGE_TREE) && sh->tree_ok;
    pthread_mutex_unlock(&sh->mu);
    return ok;
}

/* The end sent by wd_prof_feed_end_tree: waits for the figures; the consumer is joined now
 * unless it took the job (then by wd_prof_feed_join). */
static bool end_split_wait(wd_prof_feed *f)
{
    wd_prof_feed_shared *sh = f->sh;
    bool taken;
    if (spin_until(sh, STAGE_FIN, 1000000)) {
        taken = sh->after_taken; /* written before the stage, and no more */
    } else {
        pthread_mutex_lock(&sh->mu);
        WAIT_CONSUMER(sh, reached(sh, STAGE_FIN));
        taken = sh->after_taken;
        pthread_mutex_unlock(&sh->mu);
    }
    if (taken)
        (void)stop_consumer(f, false); /* it ends after the job */
    else
        unthread(f);
    return taken;
}

bool wd_prof_feed_end(wd_prof_feed *f, uint64_t ticks)
{
    if (f->end_sent) {
        bool taken = end_split_wait(f);
        f->ended = true;
        if (f->failed)
            prof_nomem(f->prof);
        return taken;
    }
    uint64_t *w;
    if ((w = put(f, 2)) != NULL) {
        w[0] = OP_END;
        w[1] = ticks;
    }
    /* The last chunk is applied here when the consumer is idle (wd_prof_feed_fini joins
     * it), else published and waited for. */
    f->took_back = f->started && stop_consumer(f, true);
    if (f->started && !f->took_back) {
        if (f->cur != NULL && f->out.w != f->cur->w)
            publish(f);
        unthread(f);
    }
    apply_here(f); /* what no consumer got: a profile that never filled a chunk, or no thread */
    f->ended = true;
    f->out.w = f->out.end = NULL;
    if (f->failed)
        prof_nomem(f->prof);
    return false;
}

void wd_prof_feed_join(wd_prof_feed *f)
{
    if (f->started) /* the job takes about 2 ms on tx-kernel-no-verif */
        (void)spin_until(f->sh, STAGE_GONE, 5000000);
    unthread(f);
}
