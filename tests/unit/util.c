#include "tests/unit/util.h"

#include <stdio.h>
#include <stdlib.h>

const char *wd_test_shared(const char *sub, const char *file, char *buf, size_t size)
{
    const char *dir = getenv("WD_SHARED_DIR");
    snprintf(buf, size, "%s/%s/%s", dir != NULL ? dir : "../shared", sub, file);
    return buf;
}

uint8_t *wd_test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            buf = NULL;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    *size = n;
    return buf;
}
