/* thread.c: a thread that runs beside its creator (thread.h). */
#define _GNU_SOURCE /* sched_getcpu, CPU_* and pthread_attr_setaffinity_np (glibc) */
#include "base/thread.h"

#include <sched.h>

#if defined(__linux__) && defined(CPU_SET)

/* The thread's start: free to run on any CPU again (the kernel keeps the mask to the CPUs
 * the process may use), then the job. */
static void *start(void *p)
{
    wd_thread *t = p;
    cpu_set_t any;
    CPU_ZERO(&any);
    for (size_t cpu = 0; cpu < CPU_SETSIZE; cpu++)
        CPU_SET(cpu, &any);
    (void)pthread_setaffinity_np(pthread_self(), sizeof any, &any);
    return t->fn(t->arg);
}

bool wd_thread_start(wd_thread *t, void *(*fn)(void *), void *arg)
{
    t->fn = fn;
    t->arg = arg;
    cpu_set_t others;
    int me = sched_getcpu();
    if (me >= 0 && sched_getaffinity(0, sizeof others, &others) == 0 &&
        CPU_ISSET((size_t)me, &others) && CPU_COUNT(&others) >= 2) {
        CPU_CLR((size_t)me, &others);
        pthread_attr_t attr;
        if (pthread_attr_init(&attr) == 0) {
            bool made = pthread_attr_setaffinity_np(&attr, sizeof others, &others) == 0 &&
                        pthread_create(&t->id, &attr, start, t) == 0;
            pthread_attr_destroy(&attr);
            if (made)
                return true;
        }
    }
    return pthread_create(&t->id, NULL, fn, arg) == 0;
}

#else

bool wd_thread_start(wd_thread *t, void *(*fn)(void *), void *arg)
{
    t->fn = fn;
    t->arg = arg;
    return pthread_create(&t->id, NULL, fn, arg) == 0;
}

#endif

void wd_thread_join(wd_thread *t)
{
    pthread_join(t->id, NULL);
}
