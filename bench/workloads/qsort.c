/* qsort: function pointers. A generic quicksort (element size and comparator as
 * parameters, like libc's qsort) sorting n pseudo-random ints ascending, then 12-byte
 * records by a key descending: every comparison is a call_indirect. */
#include "wl.h"
#include "wl_mem.h"

WORKLOAD(i32, 80000)

typedef int (*cmp_fn)(const void *, const void *);

enum { MAX = 300000 };
static i32 ints[MAX];
typedef struct record {
    u32 key, id, pad;
} record;
static record recs[MAX];

static void swap(u8 *x, u8 *y, size_t size)
{
    for (; size >= 4; size -= 4, x += 4, y += 4) {
        u32 t = *(u32 *)x;
        *(u32 *)x = *(u32 *)y;
        *(u32 *)y = t;
    }
    for (; size > 0; size--, x++, y++) {
        u8 t = *x;
        *x = *y;
        *y = t;
    }
}

/* Quicksort with median-of-three pivots, insertion sort below 8 elements, recursing
 * into the smaller half. */
static NOINLINE void sort(void *base, size_t count, size_t size, cmp_fn cmp)
{
    u8 *lo = base;
    while (count > 8) {
        u8 *mid = lo + (count / 2) * size, *hi = lo + (count - 1) * size;
        if (cmp(mid, lo) < 0)
            swap(mid, lo, size);
        if (cmp(hi, mid) < 0) {
            swap(hi, mid, size);
            if (cmp(mid, lo) < 0)
                swap(mid, lo, size);
        }
        swap(mid, lo + size, size); /* pivot at lo+1; lo <= pivot <= hi */
        u8 *pivot = lo + size, *i = lo + size, *j = hi;
        for (;;) {
            do
                i += size;
            while (cmp(i, pivot) < 0);
            do
                j -= size;
            while (cmp(pivot, j) < 0);
            if (i >= j)
                break;
            swap(i, j, size);
        }
        swap(pivot, j, size);
        size_t left = (size_t)(j - lo) / size, right = count - left - 1;
        if (left < right) {
            sort(lo, left, size, cmp);
            lo = j + size;
            count = right;
        } else {
            sort(j + size, right, size, cmp);
            count = left;
        }
    }
    for (size_t a = 1; a < count; a++)
        for (u8 *p = lo + a * size; p > lo && cmp(p, p - size) < 0; p -= size)
            swap(p, p - size, size);
}

static int cmp_int(const void *x, const void *y)
{
    i32 a = *(const i32 *)x, b = *(const i32 *)y;
    return (a > b) - (a < b);
}

static int cmp_record_desc(const void *x, const void *y)
{
    u32 a = ((const record *)x)->key, b = ((const record *)y)->key;
    return (a < b) - (a > b);
}

i32 bench(i32 n)
{
    if (n > MAX)
        n = MAX;
    u32 seed = 2463534242u;
    for (i32 i = 0; i < n; i++) {
        ints[i] = (i32)rnd_next(&seed);
        recs[i].key = rnd_next(&seed) % 100000u;
        recs[i].id = (u32)i;
    }
    sort(ints, (size_t)n, sizeof ints[0], cmp_int);
    sort(recs, (size_t)n, sizeof recs[0], cmp_record_desc);
    u32 check = 0;
    for (i32 i = 0; i < n; i++) {
        if (i > 0 && (ints[i - 1] > ints[i] || recs[i - 1].key < recs[i].key))
            return -1; /* not sorted */
        check = check * 31u + (u32)ints[i] + recs[i].key;
    }
    return (i32)check;
}
