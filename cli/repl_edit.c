/* repl_edit.c: the REPL's line editor, libedit through its readline interface: the prompt
 * `> ` (the reference's), history kept across sessions in ~/.wasmdbg_history, and tab
 * completion of command words, function names (after `break`), durable-storage paths (after
 * `ls`, `show subkeys`, `show key`, `show durable storage`) and value kinds (after `as`).
 * Used only when stdin is a terminal. libedit allocates with malloc: its strings are
 * released with free(). Ctrl-C at the prompt discards the line typed so far. */
#include "cli/repl.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <editline/readline.h>

static wd_repl *edit_repl;
static char history_path[4096];

/* Candidates of the completion in progress (malloc'd), handed out one by one. */
static char **cands;
static size_t cand_count, cand_cap, cand_next;

static const char *const phrases[] = {
    "help", "man", "stop", "quit", "exit", "time",
    "show status", "show ticks", "show inbox", "show outbox at level", "show durable storage",
    "show subkeys", "show key", "show memory at", "ls", "x",
    "dump function symbols",
    "step tick", "step result", "step kernel_run", "step inbox", "step instr", "step call",
    "step out",
    "load inputs", "reveal preimage", "reveal metadata",
    "profile --collapsed", "profile --without-time", "profile --no-reboot", "profile start",
    "profile stop",
    "break tick", "break trap", "info breakpoints", "delete", "continue",
    "bt", "backtrace", "frame", "locals", "stack", "globals",
};

static void add_cand(const char *s, size_t n, const char *text)
{
    size_t k = strlen(text);
    if (n < k || strncmp(s, text, k) != 0)
        return;
    for (size_t i = 0; i < cand_count; i++)
        if (strlen(cands[i]) == n && strncmp(cands[i], s, n) == 0)
            return;
    if (cand_count == cand_cap) {
        size_t cap = cand_cap ? 2 * cand_cap : 32;
        char **p = realloc(cands, cap * sizeof *p);
        if (p == NULL)
            return;
        cands = p;
        cand_cap = cap;
    }
    char *c = malloc(n + 1);
    if (c == NULL)
        return;
    memcpy(c, s, n);
    c[n] = '\0';
    cands[cand_count++] = c;
}

static void clear_cands(void)
{
    for (size_t i = cand_next; i < cand_count; i++)
        free(cands[i]);
    cand_count = cand_next = 0;
}

/* Command words: the phrases whose first k words are words[0..k). */
static void complete_words(char **words, int k, const char *text)
{
    for (size_t i = 0; i < WD_ARRAY_COUNT(phrases); i++) {
        const char *p = phrases[i];
        int w = 0;
        while (w < k) {
            size_t n = strcspn(p, " ");
            if (p[n] == '\0' || strlen(words[w]) != n || strncmp(p, words[w], n) != 0)
                break;
            p += n + 1;
            w++;
        }
        if (w == k)
            add_cand(p, strcspn(p, " "), text);
    }
}

static void complete_functions(const char *text)
{
    const wd_module *m = wd_pvm_module(edit_repl->s.pvm);
    if (m == NULL)
        return;
    for (uint32_t i = 0; m->names.funcs != NULL && i < m->func_count; i++)
        if (m->names.funcs[i] != NULL)
            add_cand(m->names.funcs[i], strlen(m->names.funcs[i]), text);
    for (uint32_t i = 0; i < m->export_count; i++)
        if (m->exports[i].kind == WD_EXTERN_FUNC)
            add_cand(m->exports[i].name, strlen(m->exports[i].name), text);
    for (uint32_t i = 0; i < m->import_count; i++)
        if (m->imports[i].kind == WD_EXTERN_FUNC)
            add_cand(m->imports[i].name, strlen(m->imports[i].name), text);
}

/* Durable paths: the children of the directory part of `text`. */
static void complete_paths(const char *text)
{
    if (text[0] != '/') {
        if (text[0] == '\0')
            add_cand("/", 1, text);
        return;
    }
    wd_durable *d = wd_pvm_durable(edit_repl->s.pvm);
    const char *slash = strrchr(text, '/');
    size_t dir_len = (size_t)(slash - text);
    char dir[1024], full[1400];
    if (dir_len >= sizeof dir)
        return;
    memcpy(dir, text, dir_len);
    dir[dir_len] = '\0';
    const char *key = dir_len ? dir : "/";
    size_t key_len = dir_len ? dir_len : 1;
    if (wd_durable_check_key(key, key_len, true) != 0)
        return;
    int64_t total = wd_durable_list_size(d, key, key_len);
    for (int64_t i = 0; i < total && i < 100000; i++) {
        const char *name;
        size_t n;
        if (wd_durable_nth_key(d, key, key_len, (uint64_t)i, &name, &n) != 0)
            break;
        if (n == 0 || n > 300)
            continue;
        int len = snprintf(full, sizeof full, "%s/%.*s", dir, (int)n, name);
        if (len > 0 && (size_t)len < sizeof full)
            add_cand(full, (size_t)len, text);
    }
    /* a single match with children: no space after it, so `/` can follow */
    if (cand_count == 1 && (wd_durable_has(d, cands[0], strlen(cands[0])) & 2))
        rl_completion_append_character = '\0';
}

static void complete_kinds(const char *text)
{
    static const char *const kinds[] = {"hex", "string", "hexdump", "u16", "i32", "i64",
                                        "u128", "u256"};
    for (size_t i = 0; i < WD_ARRAY_COUNT(kinds); i++)
        add_cand(kinds[i], strlen(kinds[i]), text);
}

static char *next_candidate(const char *text, int state)
{
    (void)text;
    (void)state;
    if (cand_next < cand_count)
        return cands[cand_next++]; /* libedit frees it */
    return NULL;
}

static bool is(char **words, int k, int n, const char *a, const char *b)
{
    return k == n && strcmp(words[0], a) == 0 && (b == NULL || strcmp(words[1], b) == 0);
}

static char **complete(const char *text, int start, int end)
{
    (void)end;
    rl_attempted_completion_over = 1;
    rl_completion_append_character = ' ';
    clear_cands();
    char line[1024];
    size_t n = (size_t)start < sizeof line ? (size_t)start : sizeof line - 1;
    memcpy(line, rl_line_buffer, n);
    line[n] = '\0';
    char *words[16];
    int k = 0;
    for (char *p = strtok(line, " \t"); p != NULL && k < 16; p = strtok(NULL, " \t"))
        words[k++] = p;
    char **w = words;
    while (k > 0 && strcmp(w[0], "time") == 0)
        w++, k--;
    complete_words(w, k, text);
    if (is(w, k, 1, "break", NULL) || is(w, k, 1, "b", NULL))
        complete_functions(text);
    else if (is(w, k, 1, "ls", NULL) || is(w, k, 2, "show", "subkeys") ||
             is(w, k, 2, "show", "key") ||
             (is(w, k, 3, "show", "durable") && strcmp(w[2], "storage") == 0))
        complete_paths(text);
    else if (k >= 3 && strcmp(w[k - 1], "as") == 0)
        complete_kinds(text);
    if (cand_count == 0)
        return NULL;
    cand_next = 0;
    return rl_completion_matches(text, next_candidate);
}

void wd_repl_edit_init(wd_repl *r)
{
    edit_repl = r;
    rl_readline_name = "wasmdbg";
    rl_catch_signals = 0;
    rl_attempted_completion_function = complete;
    using_history();
    stifle_history(1000);
    const char *home = getenv("HOME");
    history_path[0] = '\0';
    if (home != NULL && *home != '\0' &&
        (size_t)snprintf(history_path, sizeof history_path, "%s/.wasmdbg_history", home) <
            sizeof history_path)
        (void)read_history(history_path);
    else
        history_path[0] = '\0';
}

static volatile sig_atomic_t prompt_interrupted;

static void on_prompt_sigint(int sig)
{
    (void)sig;
    prompt_interrupted = 1;
}

/* Ctrl-C at the prompt discards the line typed so far, as in gdb and bash: the handler is
 * installed without SA_RESTART, so libedit's read fails with EINTR, readline returns NULL
 * (as at end of input, told apart by the flag), and the next readline starts an empty line.
 * A running command is interrupted by repl.c's own handler. */
char *wd_repl_edit_read(wd_repl *r)
{
    (void)r;
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prompt_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    char *line;
    for (;;) {
        prompt_interrupted = 0;
        line = readline("> ");
        if (!prompt_interrupted)
            break;
        free(line); /* typed text is discarded, and not added to history */
        printf("^C\n");
        fflush(stdout);
    }
    sigaction(SIGINT, &old, NULL);
    if (line != NULL && line[strspn(line, " \t")] != '\0') {
        add_history(line);
        if (history_path[0] != '\0')
            (void)write_history(history_path);
    }
    return line;
}

void wd_repl_edit_fini(wd_repl *r)
{
    (void)r;
    clear_cands();
    free(cands);
    cands = NULL;
    cand_cap = 0;
    edit_repl = NULL;
}
