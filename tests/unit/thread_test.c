/* thread_test.c: base/thread.c's CPU placement, read back from the threads' affinity, and its
 * count of CPUs. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "base/thread.h"
#include "tests/unit/test.h"

#include <sched.h>
#include <unistd.h>

#if defined(__linux__) && defined(CPU_SET)

typedef struct probe {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool seen;         /* set by the thread once it read `before` */
    bool released;     /* set by the test once it called wd_thread_release */
    int before, after; /* CPUs the thread may use: as it starts, after the release */
} probe;

static int allowed_cpus(void)
{
    cpu_set_t s;
    return sched_getaffinity(0, sizeof s, &s) == 0 ? CPU_COUNT(&s) : -1;
}

static void *look(void *arg)
{
    probe *p = arg;
    p->before = allowed_cpus();
    pthread_mutex_lock(&p->mu);
    p->seen = true;
    pthread_cond_broadcast(&p->cv);
    while (!p->released)
        pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
    p->after = allowed_cpus();
    return NULL;
}

/* Starts `look` (apart or not), releases it, and returns what it saw. */
static probe run_probe(bool apart)
{
    probe p = {.before = -2, .after = -2};
    pthread_mutex_init(&p.mu, NULL);
    pthread_cond_init(&p.cv, NULL);
    wd_thread t;
    bool made = apart ? wd_thread_start_apart(&t, look, &p) : wd_thread_start(&t, look, &p);
    if (made) {
        pthread_mutex_lock(&p.mu);
        while (!p.seen)
            pthread_cond_wait(&p.cv, &p.mu);
        pthread_mutex_unlock(&p.mu);
        wd_thread_release(&t);
        pthread_mutex_lock(&p.mu);
        p.released = true;
        pthread_cond_broadcast(&p.cv);
        pthread_mutex_unlock(&p.mu);
        wd_thread_join(&t);
    }
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cv);
    return p;
}

TEST(thread_apart_keeps_off_creator_cpu_until_released)
{
    int all = allowed_cpus();
    CHECK(all >= 1);
    probe p = run_probe(true);
    /* one CPU fewer (the creator's) while apart, where there is another */
    CHECK_EQ(p.before, (all >= 2 ? all - 1 : all));
    CHECK_EQ(p.after, all);
}

TEST(thread_start_runs_anywhere_once_started)
{
    int all = allowed_cpus();
    probe p = run_probe(false);
    CHECK_EQ(p.before, all);
    CHECK_EQ(p.after, all);
}

#endif

/* wd_cpu_count is the system's count of CPUs online, the same on every call and thread. */
static void *count_on_thread(void *arg)
{
    *(unsigned *)arg = wd_cpu_count();
    return NULL;
}

TEST(thread_cpu_count)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned here = wd_cpu_count(), there = 0;
    CHECK_EQ(here, n < 1 ? 1u : (unsigned)n);
    wd_thread t;
    CHECK(wd_thread_start(&t, count_on_thread, &there));
    wd_thread_join(&t);
    CHECK_EQ(there, here);
    CHECK_EQ(wd_cpu_count(), here);
}
