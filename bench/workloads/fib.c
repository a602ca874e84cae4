/* fib: recursive calls. The doubly recursive Fibonacci: almost nothing but call, compare,
 * branch and return, the cost of a wasm call in its purest form. */
#include "wl.h"
#include "wl_mem.h"

WORKLOAD(i32, 33)

static NOINLINE u32 fib(u32 k)
{
    return k < 2 ? k : fib(k - 1) + fib(k - 2);
}

i32 bench(i32 n)
{
    return (i32)fib((u32)n);
}
