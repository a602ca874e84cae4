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
} wd_thread;

/* Runs fn(arg) on a new thread, preferably started on another CPU; false when no thread
 * could be made. `t` must stay in place until wd_thread_join. */
bool wd_thread_start(wd_thread *t, void *(*fn)(void *), void *arg);
void wd_thread_join(wd_thread *t);

#endif
