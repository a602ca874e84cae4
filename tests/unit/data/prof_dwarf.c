/* prof_dwarf.c: a module with DWARF line tables (tests/unit/prof_dwarf_test.c), built with
 *   clang --target=wasm32 -O1 -g -nostdlib -Wl,--no-entry -Wl,--export=run \
 *       -o prof_dwarf.wasm prof_dwarf.c
 * and prof_dwarf5.wasm the same with -gdwarf-5 (DWARF 5 file tables).
 * The test expects the lines marked below: keep them where they are. */
__attribute__((noinline)) static int g(int x)
{
    if (x > 3)
        __builtin_trap(); /* line 9 */
    return x * 2;
}

__attribute__((noinline)) int f(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += g(i); /* line 17 */
    return s;
}

int run(int x)
{
    return f(x) + 1; /* line 23 */
}
