/* util.h: small helpers shared by unit tests. */
#ifndef WD_TESTS_UNIT_UTIL_H
#define WD_TESTS_UNIT_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* ../shared/<sub>/<file> (or $WD_SHARED_DIR/<sub>/<file>) into buf. */
const char *wd_test_shared(const char *sub, const char *file, char *buf, size_t size);
/* The whole file, malloc'ed (NULL if unreadable). */
uint8_t *wd_test_read_file(const char *path, size_t *size);

#endif
