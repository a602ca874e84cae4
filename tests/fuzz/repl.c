/* repl.c: the REPL's command lines (cli/repl*.c): the input is a script, one command per
 * line, run by `wasmdbg debug kernels/counter/counter.wasm --inputs
 * kernels/counter/counter.inputs.json --max-ticks 200000 -x SCRIPT -o DIR` in a fresh session
 * each time (wd_cli_debug, as main() calls it): the lines are read, split into words,
 * parsed and run as at the prompt, against the example kernel, with at most 200,000 ticks
 * of it per script. Everything printed goes to /dev/null; `profile` writes its files into
 * a private directory emptied after each input. */
#include "cli/cli.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>

#ifndef WD_SOURCE_ROOT
#define WD_SOURCE_ROOT "."
#endif

static char kernel[1024], inputs[1024];

void wd_fuzz_setup(void)
{
    snprintf(kernel, sizeof kernel, "%s/kernels/counter/counter.wasm", WD_SOURCE_ROOT);
    snprintf(inputs, sizeof inputs, "%s/kernels/counter/counter.inputs.json", WD_SOURCE_ROOT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wd_fuzz_empty_dir();
    char script[1100], out[1100];
    snprintf(script, sizeof script, "%s", wd_fuzz_file("script", data, size));
    snprintf(out, sizeof out, "%s/out", wd_fuzz_dir());
    char debug[] = "debug", opt_inputs[] = "--inputs", opt_max[] = "--max-ticks", max[] = "200000",
         opt_x[] = "-x", opt_o[] = "-o";
    char *argv[] = {debug, kernel, opt_inputs, inputs, opt_max, max,
                    opt_x, script, opt_o,      out,    NULL};
    int code = wd_cli_debug((int)WD_ARRAY_COUNT(argv) - 1, argv);
    if (code != WD_EXIT_OK)
        wd_fuzz_fail("wasmdbg debug exited with %d", code);
    return 0;
}
