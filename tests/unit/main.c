/* main.c: runs every registered unit test (or those whose name contains argv[1]). */
#include "tests/unit/test.h"

#include <stdlib.h>

typedef struct test_case {
    const char *name, *file;
    void (*fn)(void);
} test_case;

static test_case tests[1024];
static int test_count;
static int current_failed;

void wd_test_register(const char *name, const char *file, void (*fn)(void))
{
    if (test_count == (int)(sizeof tests / sizeof tests[0])) {
        fprintf(stderr, "too many tests\n");
        abort();
    }
    tests[test_count++] = (test_case){name, file, fn};
}

void wd_test_failed(const char *file, int line, const char *what)
{
    printf("%s:%d: check failed: %s\n", file, line, what);
    current_failed = 1;
}

int main(int argc, char **argv)
{
    int passed = 0, failed = 0;
    for (int i = 0; i < test_count; i++) {
        if (argc > 1 && strstr(tests[i].name, argv[1]) == NULL)
            continue;
        current_failed = 0;
        tests[i].fn();
        if (current_failed) {
            printf("FAIL %s (%s)\n", tests[i].name, tests[i].file);
            failed++;
        } else {
            passed++;
        }
    }
    printf("unit: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
