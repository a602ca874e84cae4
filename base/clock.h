/* clock.h: the clocks behind wasmdbg's timings.
 *
 * wd_clock_ns and wd_clock_seconds read CLOCK_MONOTONIC. The profiler stamps every call and
 * return (20,000 events in a profile of tx-kernel-no-verif), where a clock_gettime of 32 ns
 * cost 0.65 ms: wd_clock_fast reads the invariant TSC instead (15 ns here), in its own units,
 * when the processor has one (wd_clock_fast_ok; x86-64 only). A span in those units becomes
 * nanoseconds by the ratio of one long span measured on both clocks; it is never converted
 * with a fixed frequency. */
#ifndef WD_BASE_CLOCK_H
#define WD_BASE_CLOCK_H

#include "base/base.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define WD_HAVE_TSC 1
#else
#define WD_HAVE_TSC 0
#endif

int64_t wd_clock_ns(void);
double wd_clock_seconds(void);

/* Whether spans of wd_clock_fast may be timed: it is the monotonic clock, or a TSC that
 * ticks at a constant rate in every power state and on every CPU (Linux's clocksource is
 * the TSC, else CPUID's invariant TSC bit). When false, time with wd_clock_ns. */
bool wd_clock_fast_ok(void);

/* `secs` since the Unix epoch as UTC "YYYY-MM-DDTHH:MM:SS" into buf (20 bytes with the NUL);
 * false, buf untouched, for a year outside 0..9999. Pure arithmetic: gmtime_r and strftime
 * load the time zone file on their first call (50 us of every `wasmdbg profile`). */
bool wd_utc_format(int64_t secs, char buf[20]);

static inline uint64_t wd_clock_fast(void)
{
#if WD_HAVE_TSC
    return __rdtsc();
#else
    return (uint64_t)wd_clock_ns();
#endif
}

#endif
