/* matmul: memory loads and stores. C = A x B on n x n i32 matrices (row-major, the inner
 * loop striding through B), three times with A and B updated from C in between. */
#include "wl.h"
#include "wl_mem.h"

WORKLOAD(i32, 170)

enum { MAX = 256 };
static i32 a[MAX * MAX], b[MAX * MAX], c[MAX * MAX];

static void multiply(i32 n)
{
    for (i32 i = 0; i < n; i++) {
        for (i32 j = 0; j < n; j++) {
            i32 acc = 0;
            for (i32 k = 0; k < n; k++)
                acc += a[i * n + k] * b[k * n + j];
            c[i * n + j] = acc;
        }
    }
}

i32 bench(i32 n)
{
    if (n > MAX)
        n = MAX;
    u32 seed = 12345;
    for (i32 i = 0; i < n * n; i++) {
        a[i] = (i32)(rnd_next(&seed) & 0xff) - 128;
        b[i] = (i32)(rnd_next(&seed) & 0xff) - 128;
    }
    u32 check = 0;
    for (i32 round = 0; round < 3; round++) {
        multiply(n);
        for (i32 i = 0; i < n * n; i++) {
            check = check * 33u + (u32)c[i];
            a[i] = (c[i] >> 8) & 0xff;
            b[i] ^= c[i] & 0x7f;
        }
    }
    return (i32)check;
}
