/* sieve: tight loops and branches. The sieve of Eratosthenes over a byte array, done n
 * times; the checksum mixes the prime count and the sum of the primes. */
#include "wl.h"
#include "wl_mem.h"

WORKLOAD(i32, 6)

enum { LIMIT = 1000000 };
static u8 composite[LIMIT + 1];

static u32 sieve_once(u32 *sum)
{
    for (u32 i = 0; i <= LIMIT; i++)
        composite[i] = 0;
    u32 count = 0;
    u32 s = 0;
    for (u32 i = 2; i <= LIMIT; i++) {
        if (composite[i])
            continue;
        count++;
        s += i;
        if (i <= LIMIT / i)
            for (u32 j = i * i; j <= LIMIT; j += i)
                composite[j] = 1;
    }
    *sum = s;
    return count;
}

i32 bench(i32 n)
{
    u32 check = 0;
    for (i32 r = 0; r < n; r++) {
        u32 sum;
        u32 count = sieve_once(&sum);
        check = check * 31u + count + sum;
    }
    return (i32)check;
}
