/* main.c: wasmdbg's entry point: picks the subcommand. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const char help_text[] =
    "wasmdbg " WD_VERSION ": a tick-metered WebAssembly interpreter and profiler for rollup "
    "kernels\n"
    "\n"
    "usage: wasmdbg COMMAND [ARGS...]\n"
    "\n"
    "commands:\n"
    "  run KERNEL --inputs FILE     run every inbox through the PVM: debug output, ticks per\n"
    "                               kernel run and phase, outbox, traps and stuck states\n"
    "  invoke MODULE FUNC [ARG...]  call an export of a plain module (no PVM): results, "
    "ticks\n"
    "\n"
    "  wasmdbg COMMAND --help       help on a command\n"
    "  wasmdbg --version            the version\n"
    "\n"
    "exit status: 0 success, 1 a check failed (or the code trapped), 2 usage or input error\n";

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(help_text, stderr);
        return WD_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(help_text, stdout);
        return WD_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("wasmdbg %s\n", WD_VERSION);
        return WD_EXIT_OK;
    }
    if (strcmp(cmd, "invoke") == 0)
        return wd_cli_invoke(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0)
        return wd_cli_run(argc - 1, argv + 1);
    fprintf(stderr, "wasmdbg: unknown command \"%s\" (see wasmdbg --help)\n", cmd);
    return WD_EXIT_USAGE;
}
