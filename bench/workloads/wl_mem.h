/* wl_mem.h: memcpy and memset for workloads built without libc. Include it in exactly one
 * .c per workload. Word-at-a-time when both pointers are aligned, bytes otherwise; the
 * no_builtin attribute keeps clang from turning the loops back into calls to themselves. */
#ifndef WD_BENCH_WL_MEM_H
#define WD_BENCH_WL_MEM_H

#include "wl.h"

__attribute__((no_builtin("memcpy"))) void *memcpy(void *dst, const void *src, size_t size)
{
    u8 *d = dst;
    const u8 *s = src;
    if ((((size_t)d | (size_t)s) & 3) == 0) {
        for (; size >= 16; size -= 16, d += 16, s += 16) {
            ((u32 *)d)[0] = ((const u32 *)s)[0];
            ((u32 *)d)[1] = ((const u32 *)s)[1];
            ((u32 *)d)[2] = ((const u32 *)s)[2];
            ((u32 *)d)[3] = ((const u32 *)s)[3];
        }
        for (; size >= 4; size -= 4, d += 4, s += 4)
            *(u32 *)d = *(const u32 *)s;
    }
    for (; size > 0; size--)
        *d++ = *s++;
    return dst;
}

__attribute__((no_builtin("memset"))) void *memset(void *dst, int c, size_t size)
{
    u8 *d = dst;
    u32 word = (u8)c * 0x01010101u;
    for (; size > 0 && ((size_t)d & 3) != 0; size--)
        *d++ = (u8)c;
    for (; size >= 16; size -= 16, d += 16) {
        ((u32 *)d)[0] = word;
        ((u32 *)d)[1] = word;
        ((u32 *)d)[2] = word;
        ((u32 *)d)[3] = word;
    }
    for (; size > 0; size--)
        *d++ = (u8)c;
    return dst;
}

#endif
