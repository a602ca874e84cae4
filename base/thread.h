/* thread.h: a thread that runs beside its creator.
 *
 * Linux runs a new thread on its creator's CPU, where it waits until the creator blocks or
 * the scheduler moves it some milliseconds later: on the 2-CPU machine of `make bench`,
 * translating tx-kernel-no-verif on two threads took 3.0 or 6.0 ms as the second thread
 * happened to move or not, and the profiler's file writer started 0.9-2.9 ms late in 6
 * profiles of 8. wd_thread_start asks for another CPU than the caller's for the thread's
 * start (it may run on any once started), where the system has CPU affinity; the
 * translation then took 3.3 ms every time. */
#ifndef WD_BASE_THREAD_H
#define WD_BASE_THREAD_H

#include "base/base.h"

#include <pthread.h>

typedef struct wd_thread {
    pthread_t id;
    void *(*fn)(void *);
    void *arg;
    bool apart; /* kept off its creator's CPU until wd_thread_release */
} wd_thread;

/* Runs fn(arg) on a new thread, preferably started on another CPU; false when no thread
 * could be made. `t` must stay in place until wd_thread_join. */
bool wd_thread_start(wd_thread *t, void *(*fn)(void *), void *arg);

/* The same, the thread kept off the caller's CPU until wd_thread_release (where there is
 * another). For a thread that sleeps and is woken by its creator, as the profiler's
 * consumer is at each chunk of events: Linux wakes a thread on its waker's CPU, where it
 * preempts or waits behind the kernel's interpreter. Kept apart, the consumer made the
 * kernel runs of tx-kernel-no-verif's profile 0.8-0.9 ms shorter (12.44 -> 11.67 and 12.45
 * -> 11.55 ms, medians of 31 alternating runs; `run` took 10.3 ms). */
bool wd_thread_start_apart(wd_thread *t, void *(*fn)(void *), void *arg);
/* Lets a thread started apart run on any CPU again (its creator's too: when the creator is
 * about to wait for it). */
void wd_thread_release(wd_thread *t);
void wd_thread_join(wd_thread *t);

/* The CPUs online, asked of the system once (the first sysconf read sysfs: 25-45 us here). */
unsigned wd_cpu_count(void);

#endif
