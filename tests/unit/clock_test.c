/* clock_test.c: the calendar of base/clock.c. */
#include <stdlib.h>
#include <time.h>

#include "base/clock.h"
#include "tests/unit/test.h"

static void check_utc(int64_t secs, const char *want, const char *file, int line)
{
    char buf[20] = "untouched";
    if (!wd_utc_format(secs, buf) || strcmp(buf, want) != 0) {
        char msg[128];
        snprintf(msg, sizeof msg, "%lld: got %s, want %s", (long long)secs, buf, want);
        wd_test_failed(file, line, msg);
    }
}
#define CHECK_UTC(secs, want) check_utc(secs, want, __FILE__, __LINE__)

TEST(clock_utc_known_dates)
{
    CHECK_UTC(0, "1970-01-01T00:00:00");
    CHECK_UTC(-1, "1969-12-31T23:59:59");
    CHECK_UTC(951782400, "2000-02-29T00:00:00"); /* a leap day of a year divisible by 400 */
    CHECK_UTC(951868800, "2000-03-01T00:00:00");
    CHECK_UTC(4107542399, "2100-02-28T23:59:59"); /* 2100 is not a leap year */
    CHECK_UTC(4107542400, "2100-03-01T00:00:00");
    CHECK_UTC(1700000000, "2023-11-14T22:13:20");
    CHECK_UTC(-62167219200, "0000-01-01T00:00:00");
    CHECK_UTC(-62162035201, "0000-02-29T23:59:59"); /* year 0 is a leap year */
    CHECK_UTC(253402300799, "9999-12-31T23:59:59");
    char buf[20] = "untouched";
    CHECK(!wd_utc_format(253402300800, buf));
    CHECK(!wd_utc_format(-62167219201, buf));
    CHECK(!wd_utc_format(INT64_MIN, buf) && !wd_utc_format(INT64_MAX, buf));
    CHECK(strcmp(buf, "untouched") == 0);
}

/* Against the C library's gmtime_r, over days spread across the years 1..9999 and the seconds
 * around midnight and new year. */
TEST(clock_utc_matches_gmtime)
{
    uint64_t x = 88172645463325252u; /* xorshift: the same points on every run */
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t secs = -62135596800 + (int64_t)(x % (253402300800 + 62135596800));
        if (i % 4 == 1)
            secs -= secs % 86400 + (int64_t)(x >> 60) - 8; /* near a midnight */
        time_t t = (time_t)secs;
        struct tm tm;
        CHECK(gmtime_r(&t, &tm) != NULL);
        char want[64];
        snprintf(want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        char got[20];
        CHECK(wd_utc_format(secs, got));
        if (strcmp(got, want) != 0) {
            CHECK_UTC(secs, want);
            return;
        }
    }
}
