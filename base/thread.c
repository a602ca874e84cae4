/* thread.c: a thread that runs beside its creator (thread.h). */
#define _GNU_SOURCE /* sched_getcpu, CPU_* and pthread_attr_setaffinity_np (glibc) */
#include "base/thread.h"

#include <sched.h>
#include <unistd.h>

#if defined(__linux__) && defined(CPU_SET)

/* Lets `id` run on any CPU (the kernel keeps the mask to the CPUs the process may use). */
static void release(pthread_t id)
{
    cpu_set_t any;
    CPU_ZERO(&any);
    for (size_t cpu = 0; cpu < CPU_SETSIZE; cpu++)
        CPU_SET(cpu, &any);
    (void)pthread_setaffinity_np(id, sizeof any, &any);
}

/* The thread's start: free to run on any CPU again, then the job. */
static void *start(void *p)
{
    wd_thread *t = p;
    release(pthread_self());
    return t->fn(t->arg);
}

static bool start_off_cpu(wd_thread *t, void *(*fn)(void *), void *arg, bool apart)
{
    t->fn = fn;
    t->arg = arg;
    t->apart = apart;
    cpu_set_t others;
    int me = sched_getcpu();
    if (me >= 0 && sched_getaffinity(0, sizeof others, &others) == 0 &&
        CPU_ISSET((size_t)me, &others) && CPU_COUNT(&others) >= 2) {
        CPU_CLR((size_t)me, &others);
        pthread_attr_t attr;
        /* a thread kept apart runs the job as it is; another first lets itself anywhere */
        void *(*entry)(void *) = apart ? fn : start;
        if (pthread_attr_init(&attr) == 0) {
            bool made = pthread_attr_setaffinity_np(&attr, sizeof others, &others) == 0 &&
                        pthread_create(&t->id, &attr, entry, apart ? arg : (void *)t) == 0;
            pthread_attr_destroy(&attr);
            if (made)
                return true;
        }
    }
    t->apart = false;
    return pthread_create(&t->id, NULL, fn, arg) == 0;
}

bool wd_thread_start(wd_thread *t, void *(*fn)(void *), void *arg)
{
    return start_off_cpu(t, fn, arg, false);
}

bool wd_thread_start_apart(wd_thread *t, void *(*fn)(void *), void *arg)
{
    return start_off_cpu(t, fn, arg, true);
}

void wd_thread_release(wd_thread *t)
{
    if (t->apart)
        release(t->id);
    t->apart = false;
}

#else

bool wd_thread_start(wd_thread *t, void *(*fn)(void *), void *arg)
{
    t->fn = fn;
    t->arg = arg;
    t->apart = false;
    return pthread_create(&t->id, NULL, fn, arg) == 0;
}

bool wd_thread_start_apart(wd_thread *t, void *(*fn)(void *), void *arg)
{
    return wd_thread_start(t, fn, arg);
}

void wd_thread_release(wd_thread *t)
{
    (void)t;
}

#endif

void wd_thread_join(wd_thread *t)
{
    pthread_join(t->id, NULL);
}

static unsigned cpu_count;
static pthread_once_t cpu_count_once = PTHREAD_ONCE_INIT;

static void count_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_count = n < 1 ? 1 : (unsigned)n;
}

unsigned wd_cpu_count(void)
{
    pthread_once(&cpu_count_once, count_cpus);
    return cpu_count;
}
