/* memops: memcpy and memset heavy code, built twice: memops.wasm calls the word-at-a-time
 * memcpy/memset of wl_mem.h, memops_bulk.wasm (-mbulk-memory) has clang lower them to
 * memory.copy and memory.fill. Per round, 65536 copies and fills at random offsets in a
 * 1 MiB buffer: most of 1 to 64 bytes, some up to 1 KiB, a few up to 16 KiB (so per-call
 * overhead and per-byte speed both count); the checksum samples the buffer each round.
 * Both builds give the same checksum. */
#include "wl.h"
#include "wl_mem.h"

WORKLOAD(i32, 6)

enum { SIZE = 1 << 20, MAXLEN = 16384 };
static u8 buf[SIZE];

static u32 pick_len(u32 x)
{
    if ((x & 63) == 0)
        return (x >> 6) % MAXLEN;
    if ((x & 7) == 0)
        return (x >> 3) % 1024;
    return (x >> 3) % 64 + 1;
}

i32 bench(i32 n)
{
    u32 seed = 77;
    for (u32 i = 0; i < SIZE; i++)
        buf[i] = (u8)(i * 7u + (i >> 9));
    u32 check = 0;
    for (i32 r = 0; r < n; r++) {
        for (u32 op = 0; op < 65536; op++) {
            u32 x = rnd_next(&seed);
            u32 len = pick_len(x);
            /* sources in the lower half, destinations in the upper: never overlapping, so
             * memcpy and memory.copy give the same bytes */
            u32 src = rnd_next(&seed) % (SIZE / 2 - MAXLEN);
            u32 dst = SIZE / 2 + rnd_next(&seed) % (SIZE / 2 - MAXLEN);
            if (op & 2) { /* half of the copies word-aligned */
                src &= ~3u;
                dst &= ~3u;
            }
            if ((op & 3) != 3)
                __builtin_memcpy(buf + dst, buf + src, len);
            else
                __builtin_memset(buf + dst, (int)(x >> 24), len);
            if ((op & 255) == 0) /* feed the upper half back into the lower */
                __builtin_memcpy(buf + src, buf + dst, len);
        }
        for (u32 i = 0; i < SIZE; i += 4093)
            check = check * 31u + buf[i];
    }
    return (i32)check;
}
