/* main.c: wasmdbg's entry point: picks the subcommand. */
#include "cli/cli.h"

#include "vm/tickmodel.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char help_text[] =
    "wasmdbg " WD_VERSION ": a tick-metered WebAssembly interpreter and profiler for rollup "
    "kernels\n"
    "\n"
    "usage: wasmdbg COMMAND [ARGS...]\n"
    "\n"
    "commands:\n"
    "  run KERNEL --inputs FILE     run every inbox through the PVM: debug output, ticks per\n"
    "                               kernel run and phase, outbox, traps and stuck states\n"
    "  profile KERNEL --inputs FILE run and profile: ticks and time per phase and function,\n"
    "                               hot steps; flamegraph, folded stacks, trace files\n"
    "  report TRACE                 rebuild a profile from a trace (profile --record)\n"
    "  debug KERNEL [--inputs FILE] the interactive debugger (the reference debugger's REPL,\n"
    "                               breakpoints, stepping, bt); also `wasmdbg KERNEL ...`\n"
    "  budget check|update KERNEL --inputs FILE --budget FILE\n"
    "                               CI gate: compare ticks (total, phases, levels,\n"
    "                               functions) with a budget file, or write it\n"
    "  diff OLD NEW [--svg FILE]    compare two profiles (profile --json or -o DIR): ticks\n"
    "                               per phase and function, biggest changes first; a\n"
    "                               differential flamegraph\n"
    "  invoke MODULE FUNC [ARG...]  call an export of a plain module (no PVM): results, "
    "ticks\n"
    "\n"
    "  wasmdbg COMMAND --help       help on a command\n"
    "  wasmdbg --version            the version\n"
    "\n"
    "exit status: 0 success; a kernel run's trap or stuck PVM is a reported outcome (exit 0)\n"
    "  unless --fail-on-stuck; 1 a check failed: a budget exceeded (or a run trapped or got\n"
    "  stuck under `budget`), --fail-on-stuck, --max-ticks reached, `invoke`'s call\n"
    "  trapped; 2 usage or input error; 130 interrupted (Ctrl-C)\n";

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
    if (strcmp(cmd, "profile") == 0)
        return wd_cli_profile(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return wd_cli_report(argc - 1, argv + 1);
    if (strcmp(cmd, "debug") == 0)
        return wd_cli_debug(argc - 1, argv + 1);
    if (strcmp(cmd, "budget") == 0)
        return wd_cli_budget(argc - 1, argv + 1);
    if (strcmp(cmd, "diff") == 0)
        return wd_cli_diff(argc - 1, argv + 1);
    /* As the reference debugger is used: `wasmdbg KERNEL ...` or `wasmdbg --kernel K ...`. */
    struct stat st;
    bool kernel = stat(cmd, &st) == 0 && S_ISREG(st.st_mode);
    size_t n = strlen(cmd);
    for (int i = 1; i < argc; i++)
        kernel |= strcmp(argv[i], "--kernel") == 0;
    static const char *const suffixes[] = {".wasm", ".wat", ".wast", ".hex"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++)
        kernel |= n > strlen(suffixes[i]) && strcmp(cmd + n - strlen(suffixes[i]), suffixes[i]) == 0;
    if (kernel) /* a kernel file that cannot be read gets the debugger's error */
        return wd_cli_debug(argc, argv);
    fprintf(stderr, "wasmdbg: unknown command \"%s\" (see wasmdbg --help)\n", cmd);
    return WD_EXIT_USAGE;
}

bool wd_cli_print_json(json_t *doc)
{
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(doc);
    if (text == NULL)
        return false;
    puts(text);
    free(text);
    return true;
}

/* Prints `word` so that a POSIX shell reads it back as one word: as it is when it holds
 * only characters no shell treats specially, else in single quotes. */
static void put_shell_word(FILE *f, const char *word)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                "0123456789_-+=.,/:@%";
    if (word[0] != '\0' && strspn(word, plain) == strlen(word)) {
        fputs(word, f);
        return;
    }
    fputc('\'', f);
    for (const char *p = word; *p != '\0'; p++) {
        if (*p == '\'')
            fputs("'\\''", f);
        else
            fputc(*p, f);
    }
    fputc('\'', f);
}

int wd_cli_refuse_retired(const char *path, const char *model, const char *const *words,
                          size_t count)
{
    const char *why = wd_tickmodel_retired(model);
    if (why == NULL)
        return -1;
    fprintf(stderr,
            "wasmdbg: %s: recorded under tick model %s, which %s. Its figures cannot be "
            "compared with today's: record them anew with `",
            path, model, why);
    for (size_t i = 0; i < count; i++) {
        if (i > 0)
            fputc(' ', stderr);
        put_shell_word(stderr, words[i]);
    }
    fputs("`\n", stderr);
    return WD_EXIT_USAGE;
}
