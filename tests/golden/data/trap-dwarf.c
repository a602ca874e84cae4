/* trap-dwarf.c: a kernel that traps two calls deep, built with DWARF line tables for the
 * golden tests of source lines in `run` and `profile` backtraces. Rebuild (from this folder):
 *   clang --target=wasm32 -O1 -g -nostdlib -Wl,--no-entry -Wl,--export=kernel_run \
 *       -o trap-dwarf.wasm trap-dwarf.c */
#include "../../../kernels/wasmdbg.h"

static volatile uint32_t depth;

__attribute__((noinline)) static void check(uint32_t n)
{
    if (n > 2)
        __builtin_trap();
    depth = n;
}

__attribute__((noinline)) static void walk(uint32_t n)
{
    for (uint32_t i = 0; i <= n; i++)
        check(i);
}

void kernel_run(void);
void kernel_run(void)
{
    write_debug("walking\n", 8);
    walk(depth + 3);
}
