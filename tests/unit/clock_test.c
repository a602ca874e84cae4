/* clock_test.c: the calendar of base/clock.c. */
#include <time.h>

#include "base/clock.h"
#include "tests/unit/test.h"
#include "tests/unit/util.h"

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

/* Against the C library's gmtime_r, on days spread across the years 1..9999, at any second
 * of the day or in the last and first seconds around midnight. */
TEST(clock_utc_matches_gmtime)
{
    const int64_t year1 = -62135596800; /* 0001-01-01T00:00:00 */
    const uint32_t days = 3652059;      /* 0001-01-01 .. 9999-12-31 */
    uint64_t rnd = 88172645463325252u;
    for (int i = 0; i < 200000; i++) {
        int64_t day = wd_test_rnd(&rnd, days);
        int64_t second = i % 4 == 1 ? (86400 - 8 + wd_test_rnd(&rnd, 16)) % 86400
                                    : wd_test_rnd(&rnd, 86400);
        int64_t secs = year1 + day * 86400 + second;
        time_t t = (time_t)secs;
        struct tm tm;
        CHECK(gmtime_r(&t, &tm) != NULL);
        char want[64];
        snprintf(want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02d", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        char got[20];
        if (!wd_utc_format(secs, got) || strcmp(got, want) != 0) {
            CHECK_UTC(secs, want);
            return;
        }
    }
}
