/* clock.c: the clocks behind wasmdbg's timings (clock.h). */
#include "base/clock.h"

#include <stdio.h>
#include <string.h>
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

bool wd_utc_format(int64_t secs, char buf[20])
{
    /* 400-year eras of 146097 days, counted from 0000-03-01 so that February is the last
     * month of a year and its leap day the last day of one. */
    const int64_t max = 253402300799; /* 9999-12-31T23:59:59 */
    const int64_t min = -62167219200; /* 0000-01-01T00:00:00 */
    if (secs < min || secs > max)
        return false;
    /* days since 0000-03-01 (January and February of year 0 are -60..-1), one era ahead so
     * that the division below never sees a negative day */
    int64_t days = (secs - min) / 86400 - 60 + 146097, rest = (secs - min) % 86400;
    int64_t era = days / 146097, doe = days % 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153, day = doy - (153 * mp + 2) / 5 + 1;
    int64_t month = mp < 10 ? mp + 3 : mp - 9, year = yoe + 400 * (era - 1) + (month <= 2);
    const int64_t fields[6] = {year, month, day, rest / 3600, rest / 60 % 60, rest % 60};
    char *w = buf;
    for (int k = 0; k < 6; k++) {
        for (int64_t v = fields[k], unit = k == 0 ? 1000 : 10; unit > 0; unit /= 10)
            *w++ = (char)('0' + v / unit % 10);
        *w++ = "--T::"[k < 5 ? k : 0]; /* the last one is replaced by the NUL */
    }
    w[-1] = '\0';
    return true;
}

#if WD_HAVE_TSC
/* Whether Linux keeps time with the TSC: it took it as its clocksource because it found it
 * invariant and in step on every CPU, and its watchdog would have replaced it otherwise. */
static bool kernel_clock_is_tsc(void)
{
    char buf[16] = {0};
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (f == NULL)
        return false;
    bool tsc = fgets(buf, sizeof buf, f) != NULL && strcmp(buf, "tsc\n") == 0;
    fclose(f);
    return tsc;
}
#endif

/* The kernel's word first (6 us here): a CPUID exits to the hypervisor in a VM, 24 us each
 * on the test machine, where __get_cpuid's four (two leaves, each after the highest leaf's)
 * took 0.1 ms of every profile. */
bool wd_clock_fast_ok(void)
{
#if WD_HAVE_TSC
    if (kernel_clock_is_tsc())
        return true;
    /* CPUID 0x80000007, EDX bit 8: the TSC is invariant (Linux's constant_tsc and
     * nonstop_tsc); a hypervisor that cannot keep it so does not report it. */
    unsigned a, b, c, d;
    if ((unsigned)__get_cpuid_max(0x80000000, NULL) < 0x80000007u)
        return false;
    __cpuid(0x80000007, a, b, c, d);
    (void)a, (void)b, (void)c;
    return (d >> 8 & 1) != 0;
#else
    return false;
#endif
}
