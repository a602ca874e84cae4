/* clock.c: the clocks behind wasmdbg's timings (clock.h). */
#include "base/clock.h"

#include <time.h>

#if WD_HAVE_TSC
#include <cpuid.h>
#endif

int64_t wd_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double wd_clock_seconds(void)
{
    return (double)wd_clock_ns() * 1e-9;
}

bool wd_clock_fast_ok(void)
{
#if WD_HAVE_TSC
    unsigned a, b, c, d;
    /* CPUID 0x80000007, EDX bit 8: the TSC is invariant (Linux's constant_tsc and
     * nonstop_tsc); a hypervisor that cannot keep it so does not report it. */
    return __get_cpuid(0x80000000, &a, &b, &c, &d) && a >= 0x80000007 &&
           __get_cpuid(0x80000007, &a, &b, &c, &d) && (d >> 8 & 1) != 0;
#else
    return false;
#endif
}
