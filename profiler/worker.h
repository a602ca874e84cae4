/* worker.h: a thread that waits for one job at a time (the profile's event files).
 *
 * Why a thread kept waiting rather than one created when the files are written: Linux
 * starts a new thread on its creator's CPU, where it runs only once the creator blocks
 * (tx-kernel-no-verif: the writer started 0.9-2.9 ms late in 6 profiles of 8, after the
 * calling thread had written its own files), while a sleeping thread that is woken goes to
 * an idle CPU at once. */
#ifndef WD_PROFILER_WORKER_H
#define WD_PROFILER_WORKER_H

#include "base/alloc.h"

typedef struct prof_worker prof_worker;

/* A waiting thread; NULL when none can be made (jobs then run on the caller's thread). */
prof_worker *prof_worker_new(wd_ctx *ctx);
/* Starts fn(arg) on the worker, which must be idle; false when w is NULL. */
bool prof_worker_post(prof_worker *w, void (*fn)(void *), void *arg);
/* Waits for the posted job to finish. */
void prof_worker_wait(prof_worker *w);
/* Ends the thread (after its job, if any); NULL is a no-op. */
void prof_worker_free(prof_worker *w);

#endif
