/* worker.c: a thread that waits for one job at a time (worker.h). */
#include "profiler/worker.h"

#include <pthread.h>

struct prof_worker {
    wd_ctx *ctx;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* signalled when a job is posted, done, or the worker is ended */
    void (*fn)(void *);  /* the posted job, NULL when none is pending */
    void *arg;
    bool busy, quit;
};

static void *loop(void *arg)
{
    prof_worker *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (w->fn == NULL && !w->quit)
            pthread_cond_wait(&w->cond, &w->lock);
        if (w->fn == NULL) /* quit, nothing pending */
            break;
        void (*fn)(void *) = w->fn;
        void *fn_arg = w->arg;
        pthread_mutex_unlock(&w->lock);
        fn(fn_arg);
        pthread_mutex_lock(&w->lock);
        w->fn = NULL;
        w->busy = false;
        pthread_cond_broadcast(&w->cond);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

prof_worker *prof_worker_new(wd_ctx *ctx)
{
    prof_worker *w = wd_alloc(ctx, sizeof *w);
    if (w == NULL)
        return NULL;
    *w = (prof_worker){.ctx = ctx};
    if (pthread_mutex_init(&w->lock, NULL) != 0) {
        wd_free(ctx, w);
        return NULL;
    }
    if (pthread_cond_init(&w->cond, NULL) != 0) {
        pthread_mutex_destroy(&w->lock);
        wd_free(ctx, w);
        return NULL;
    }
    if (pthread_create(&w->thread, NULL, loop, w) != 0) {
        pthread_cond_destroy(&w->cond);
        pthread_mutex_destroy(&w->lock);
        wd_free(ctx, w);
        return NULL;
    }
    return w;
}

bool prof_worker_post(prof_worker *w, void (*fn)(void *), void *arg)
{
    if (w == NULL)
        return false;
    pthread_mutex_lock(&w->lock);
    WD_ASSERT(!w->busy);
    w->fn = fn;
    w->arg = arg;
    w->busy = true;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    return true;
}

void prof_worker_wait(prof_worker *w)
{
    pthread_mutex_lock(&w->lock);
    while (w->busy)
        pthread_cond_wait(&w->cond, &w->lock);
    pthread_mutex_unlock(&w->lock);
}

void prof_worker_free(prof_worker *w)
{
    if (w == NULL)
        return;
    pthread_mutex_lock(&w->lock);
    w->quit = true;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cond);
    pthread_mutex_destroy(&w->lock);
    wd_free(w->ctx, w);
}
