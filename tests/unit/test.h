/* test.h: the unit-test harness. TEST(name) registers a test; CHECK* report file:line and
 * the failed check and end the test. main.c runs them all and prints `N passed, N failed`. */
#ifndef WD_TESTS_UNIT_TEST_H
#define WD_TESTS_UNIT_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void wd_test_register(const char *name, const char *file, void (*fn)(void));
void wd_test_failed(const char *file, int line, const char *what);

#define TEST(name)                                                                                 \
    static void name(void);                                                                        \
    __attribute__((constructor)) static void register_##name(void)                                 \
    {                                                                                              \
        wd_test_register(#name, __FILE__, name);                                                   \
    }                                                                                              \
    static void name(void)

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            wd_test_failed(__FILE__, __LINE__, #cond);                                             \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* Integer equality, printing both sides on failure. */
#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                            \
        if (check_a_ != check_b_) {                                                                \
            char check_msg_[256];                                                                  \
            snprintf(check_msg_, sizeof check_msg_, "%s == %s (%lld != %lld)", #a, #b, check_a_,   \
                     check_b_);                                                                    \
            wd_test_failed(__FILE__, __LINE__, check_msg_);                                        \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define CHECK_STR_CONTAINS(haystack, needle)                                                       \
    do {                                                                                           \
        if (strstr((haystack), (needle)) == NULL) {                                                \
            char check_msg_[400];                                                                  \
            snprintf(check_msg_, sizeof check_msg_, "\"%.250s\" contains \"%.120s\"", (haystack), \
                     (needle));                                                                    \
            wd_test_failed(__FILE__, __LINE__, check_msg_);                                        \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#endif
