/* thread.c: a thread that runs beside its creator (thread.h). */
#define _GNU_SOURCE /* sched_getcpu, CPU_* and pthread_attr_setaffinity_np (glibc) */
#include "base/thread.h"

#include <sched.h>
#include <stdlib.h>

#if defined(__linux__) && defined(CPU_SET)

typedef struct start_arg {
    void *(*fn)(void *);
    void *arg;
    cpu_set_t all; /* the process's CPUs, the thread's once started */
} start_arg;

static void *start(void *p)
{
    start_arg a = *(start_arg *)p;
    free(p);
    (void)pthread_setaffinity_np(pthread_self(), sizeof a.all, &a.all);
    return a.fn(a.arg);
}

bool wd_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
    start_arg *a = malloc(sizeof *a); /* the thread's, before the context allocator's */
    int me = sched_getcpu();
    if (a == NULL || me < 0 || sched_getaffinity(0, sizeof a->all, &a->all) != 0 ||
        CPU_COUNT(&a->all) < 2 || !CPU_ISSET((size_t)me, &a->all)) {
        free(a);
        return pthread_create(th, NULL, fn, arg) == 0;
    }
    a->fn = fn;
    a->arg = arg;
    cpu_set_t others = a->all;
    CPU_CLR((size_t)me, &others);
    pthread_attr_t attr;
    bool made = false;
    if (pthread_attr_init(&attr) == 0) {
        made = pthread_attr_setaffinity_np(&attr, sizeof others, &others) == 0 &&
               pthread_create(th, &attr, start, a) == 0;
        pthread_attr_destroy(&attr);
    }
    if (made)
        return true;
    free(a);
    return pthread_create(th, NULL, fn, arg) == 0;
}

#else

bool wd_thread_start(pthread_t *th, void *(*fn)(void *), void *arg)
{
    return pthread_create(th, NULL, fn, arg) == 0;
}

#endif
