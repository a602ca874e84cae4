/* runner.c: the spec test runner's command line, known failures and counts.
 *
 *   spec_runner [--single-step] [--ticks-log FILE] [--known FILE] [--update] [--verbose]
 *               [--skip-file FILE.json]... FILE.json...
 *
 * Each failure prints `file.wast:LINE: reason`; the last line is
 * `spec: N passed, N failed, N skipped`. Every command but `register` counts as a test.
 *
 * --skip-file FILE.json records every command of that script as skipped (run.sh uses it for
 * the SIMD scripts, a later issue). --ticks-log FILE writes `file.wast:LINE ticks=N` after
 * every action: the thread's tick counter, which accumulates over a script.
 *
 * Known failures (--known): lines `file.wast:LINE reason` ('#' starts a comment). A
 * failure listed with the same reason counts as skipped (an expected failure) and is
 * summed in a separate line; a failure not listed, listed with another reason, or a
 * listed entry that now passes or no longer occurs counts as failed and makes the run
 * exit 1. Entries of files not run are left alone. --update rewrites the file with the
 * failures of this run (keeping its comments and the entries of other files). */
#include "base/alloc.h"
#include "tests/spec/spec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct entry {
    char *key; /* file.wast:LINE */
    char *reason;
    bool matched; /* seen in this run */
} entry;

typedef struct category {
    const char *name; /* a command type; static strings only (see category_of) */
    uint64_t passed, failed, skipped;
} category;

struct wd_spec_runner {
    wd_spec_opts opts;
    bool update;
    const char *known_path;
    wd_ctx ctx;
    WD_VEC(entry) known;
    WD_VEC(char *) header;  /* comment lines of the known failures file */
    WD_VEC(entry) failures; /* every failure of this run (for --update) */
    WD_VEC(char *) files;   /* the .wast names run */
    uint64_t passed, failed, skipped, expected_failures, mismatches;
    category cats[16];
    bool run_failed;
};

const wd_spec_opts *wd_spec_options(const wd_spec_runner *r)
{
    return &r->opts;
}

static char *dup_str(wd_spec_runner *r, const char *s)
{
    char *p = wd_strndup(&r->ctx, s, strlen(s));
    if (p == NULL) {
        fprintf(stderr, "spec_runner: out of memory\n");
        exit(2);
    }
    return p;
}

static void push_entry(wd_spec_runner *r, bool known, const char *key, const char *reason)
{
    entry e = {dup_str(r, key), dup_str(r, reason), false};
    if (!(known ? WD_VEC_PUSH(&r->ctx, &r->known, e) : WD_VEC_PUSH(&r->ctx, &r->failures, e))) {
        fprintf(stderr, "spec_runner: out of memory\n");
        exit(2);
    }
}

/* The category of a command type: the static name in the table, so it can be kept. */
static category *category_of(wd_spec_runner *r, const char *cmd)
{
    static const char *const names[] = {"module",
                                        "register",
                                        "action",
                                        "assert_return",
                                        "assert_trap",
                                        "assert_exhaustion",
                                        "assert_malformed",
                                        "assert_invalid",
                                        "assert_unlinkable",
                                        "assert_uninstantiable",
                                        "script",
                                        "leak"};
    size_t i = 0;
    while (i < WD_ARRAY_COUNT(names) && strcmp(names[i], cmd) != 0)
        i++;
    category *c = &r->cats[i]; /* i == count: "other" */
    c->name = i < WD_ARRAY_COUNT(names) ? names[i] : "other";
    return c;
}

static entry *find_known(wd_spec_runner *r, const char *key)
{
    for (uint32_t i = 0; i < r->known.count; i++)
        if (!r->known.data[i].matched && strcmp(r->known.data[i].key, key) == 0)
            return &r->known.data[i];
    return NULL;
}

static void record_failure(wd_spec_runner *r, const char *key, const char *reason, category *c)
{
    push_entry(r, false, key, reason);
    entry *k = r->update ? NULL : find_known(r, key);
    if (r->update || (k != NULL && strcmp(k->reason, reason) == 0)) {
        if (k != NULL)
            k->matched = true;
        r->expected_failures++;
        r->skipped++;
        c->skipped++;
        if (r->opts.verbose)
            printf("%s: %s (known failure)\n", key, reason);
        return;
    }
    if (k != NULL) {
        k->matched = true;
        printf("%s: %s (known failure changed; the list says: %s)\n", key, reason, k->reason);
    } else {
        printf("%s: %s\n", key, reason);
    }
    r->failed++;
    c->failed++;
    r->run_failed = true;
}

void wd_spec_record(wd_spec_runner *r, const char *wast, long line, const char *cmd,
                    wd_spec_result res, const char *reason)
{
    char key[300];
    snprintf(key, sizeof key, "%s:%ld", wast, line);
    category *c = category_of(r, cmd);
    if (res == WD_SPEC_FAIL) {
        record_failure(r, key, reason != NULL ? reason : "failed", c);
        return;
    }
    entry *k = r->update ? NULL : find_known(r, key);
    if (k != NULL && res == WD_SPEC_PASS) {
        k->matched = true;
        printf("%s: passes, but is listed in the known failures\n", key);
        r->failed++;
        c->failed++;
        r->run_failed = true;
    } else if (res == WD_SPEC_PASS) {
        r->passed++;
        c->passed++;
    } else {
        if (k != NULL)
            k->matched = true; /* a skip hides nothing: the entry stays valid */
        r->skipped++;
        c->skipped++;
        if (r->opts.verbose)
            printf("%s: skipped: %s\n", key, reason != NULL ? reason : "");
    }
}

void wd_spec_mismatch(wd_spec_runner *r, const char *wast, long line, const char *expected,
                      const char *got)
{
    r->mismatches++;
    if (r->opts.verbose)
        printf("%s:%ld: message mismatch: expected \"%s\", got \"%s\"\n", wast, line, expected,
               got);
}

/* ---- the known failures file ---- */

static void load_known(wd_spec_runner *r)
{
    FILE *f = fopen(r->known_path, "r");
    if (f == NULL)
        return; /* no file: nothing is expected to fail */
    char line[1024];
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0') {
            char *copy = dup_str(r, line);
            if (line[0] == '#' && !WD_VEC_PUSH(&r->ctx, &r->header, copy))
                exit(2);
            if (line[0] != '#')
                wd_free(&r->ctx, copy);
            continue;
        }
        char *space = strchr(line, ' ');
        if (space != NULL)
            *space = '\0';
        push_entry(r, true, line, space != NULL ? space + 1 : "");
    }
    fclose(f);
}

/* The .wast name of a key ("file.wast:LINE"). */
static bool key_in_files(const wd_spec_runner *r, const char *key)
{
    const char *colon = strrchr(key, ':');
    size_t len = colon != NULL ? (size_t)(colon - key) : strlen(key);
    for (uint32_t i = 0; i < r->files.count; i++)
        if (strlen(r->files.data[i]) == len && memcmp(r->files.data[i], key, len) == 0)
            return true;
    return false;
}

static long key_line(const char *key)
{
    const char *colon = strrchr(key, ':');
    return colon != NULL ? strtol(colon + 1, NULL, 10) : 0;
}

static int compare_entries(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    const char *cx = strrchr(x->key, ':'), *cy = strrchr(y->key, ':');
    size_t lx = cx ? (size_t)(cx - x->key) : strlen(x->key);
    size_t ly = cy ? (size_t)(cy - y->key) : strlen(y->key);
    int c = strncmp(x->key, y->key, WD_MIN(lx, ly));
    if (c != 0 || lx != ly)
        return c != 0 ? c : (lx < ly ? -1 : 1);
    long a_line = key_line(x->key), b_line = key_line(y->key);
    return a_line < b_line ? -1 : a_line > b_line;
}

static void write_known(wd_spec_runner *r)
{
    for (uint32_t i = 0; i < r->known.count; i++)
        if (!key_in_files(r, r->known.data[i].key))
            push_entry(r, false, r->known.data[i].key, r->known.data[i].reason);
    qsort(r->failures.data, r->failures.count, sizeof *r->failures.data, compare_entries);
    FILE *f = fopen(r->known_path, "w");
    if (f == NULL) {
        printf("spec: cannot write %s\n", r->known_path);
        r->run_failed = true;
        return;
    }
    for (uint32_t i = 0; i < r->header.count; i++)
        fprintf(f, "%s\n", r->header.data[i]);
    for (uint32_t i = 0; i < r->failures.count; i++)
        fprintf(f, "%s %s\n", r->failures.data[i].key, r->failures.data[i].reason);
    if (fclose(f) != 0)
        r->run_failed = true;
    printf("spec: wrote %s (%" PRIu32 " entries)\n", r->known_path, r->failures.count);
}

/* Listed entries of the files run that did not occur. */
static void check_stale(wd_spec_runner *r)
{
    for (uint32_t i = 0; i < r->known.count; i++) {
        entry *k = &r->known.data[i];
        if (k->matched || !key_in_files(r, k->key))
            continue;
        printf("%s: listed in the known failures, but did not occur\n", k->key);
        r->failed++;
        r->run_failed = true;
    }
}

/* ---- main ---- */

static void usage(FILE *out)
{
    fprintf(out, "usage: spec_runner [--single-step] [--no-fuse] [--ticks-log FILE] [--known FILE] "
                 "[--update]\n"
                 "                   [--verbose] [--skip-file FILE.json]... FILE.json...\n");
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void run_file(wd_spec_runner *r, const char *path, const char *skip_reason)
{
    double start = now_ms();
    char wast[256];
    size_t count = wd_spec_run_script(r, path, skip_reason, wast, sizeof wast);
    char *copy = dup_str(r, wast);
    if (!WD_VEC_PUSH(&r->ctx, &r->files, copy))
        exit(2);
    if (r->opts.verbose)
        printf("%s: %zu commands%s in %.1f ms\n", wast, count, skip_reason ? " skipped" : "",
               now_ms() - start);
    fflush(stdout);
}

static void print_summary(wd_spec_runner *r)
{
    if (r->opts.verbose) {
        for (size_t i = 0; i < WD_ARRAY_COUNT(r->cats); i++) {
            const category *c = &r->cats[i];
            if (c->name != NULL)
                printf("  %-22s %" PRIu64 " passed, %" PRIu64 " failed, %" PRIu64 " skipped\n",
                       c->name, c->passed, c->failed, c->skipped);
        }
    }
    if (r->mismatches != 0)
        printf("spec: %" PRIu64 " message mismatches (right category, other text%s)\n",
               r->mismatches, r->opts.verbose ? "" : "; --verbose lists them");
    if (r->expected_failures != 0)
        printf("spec: %" PRIu64 " known failures (counted as skipped)\n", r->expected_failures);
    printf("spec: %" PRIu64 " passed, %" PRIu64 " failed, %" PRIu64 " skipped\n", r->passed,
           r->failed, r->skipped);
}

/* Parses the options (they may come anywhere); returns the number of scripts named, -1 on
 * a usage error, -2 for --help. */
static int parse_args(wd_spec_runner *r, int argc, char **argv, const char **ticks_path)
{
    int scripts = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strncmp(a, "--", 2) != 0)
            scripts++;
        else if (strcmp(a, "--help") == 0)
            return -2;
        else if (strcmp(a, "--single-step") == 0)
            r->opts.single_step = true;
        else if (strcmp(a, "--no-fuse") == 0)
            r->opts.no_fuse = true;
        else if (strcmp(a, "--verbose") == 0)
            r->opts.verbose = true;
        else if (strcmp(a, "--update") == 0)
            r->update = true;
        else if (strcmp(a, "--ticks-log") == 0 && has_value)
            *ticks_path = argv[++i];
        else if (strcmp(a, "--known") == 0 && has_value)
            r->known_path = argv[++i];
        else if (strcmp(a, "--skip-file") == 0 && has_value)
            scripts++, i++; /* run in order with the others, in main */
        else
            return -1;
    }
    return scripts;
}

static void free_runner(wd_spec_runner *r)
{
    for (uint32_t i = 0; i < r->known.count; i++) {
        wd_free(&r->ctx, r->known.data[i].key);
        wd_free(&r->ctx, r->known.data[i].reason);
    }
    for (uint32_t i = 0; i < r->failures.count; i++) {
        wd_free(&r->ctx, r->failures.data[i].key);
        wd_free(&r->ctx, r->failures.data[i].reason);
    }
    for (uint32_t i = 0; i < r->header.count; i++)
        wd_free(&r->ctx, r->header.data[i]);
    for (uint32_t i = 0; i < r->files.count; i++)
        wd_free(&r->ctx, r->files.data[i]);
    WD_VEC_FREE(&r->ctx, &r->known);
    WD_VEC_FREE(&r->ctx, &r->failures);
    WD_VEC_FREE(&r->ctx, &r->header);
    WD_VEC_FREE(&r->ctx, &r->files);
}

int main(int argc, char **argv)
{
    static wd_spec_runner runner;
    wd_spec_runner *r = &runner;
    wd_ctx_init(&r->ctx);
    const char *ticks_path = NULL;
    int scripts = parse_args(r, argc, argv, &ticks_path);
    if (scripts <= 0) {
        usage(scripts == -2 ? stdout : stderr);
        return scripts == -2 ? 0 : 2;
    }
    if (r->update && r->known_path == NULL) {
        fprintf(stderr, "spec_runner: --update needs --known FILE\n");
        return 2;
    }
    if (ticks_path != NULL && (r->opts.ticks_log = fopen(ticks_path, "w")) == NULL) {
        fprintf(stderr, "spec_runner: cannot write %s\n", ticks_path);
        return 2;
    }
    if (r->known_path != NULL)
        load_known(r);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--skip-file") == 0)
            run_file(r, argv[++i], "file skipped (--skip-file)");
        else if (strcmp(argv[i], "--ticks-log") == 0 || strcmp(argv[i], "--known") == 0)
            i++;
        else if (strncmp(argv[i], "--", 2) != 0)
            run_file(r, argv[i], NULL);
    }
    if (r->update)
        write_known(r);
    else
        check_stale(r);
    if (r->opts.ticks_log != NULL && fclose(r->opts.ticks_log) != 0)
        r->run_failed = true;
    print_summary(r);
    free_runner(r);
    return r->run_failed ? 1 : 0;
}
