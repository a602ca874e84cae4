/* pvmopts.c: the reference debugger's options, shared by the PVM subcommands. */
#include "cli/pvmopts.h"

#include <errno.h>

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "cli/cli.h"
#include "cli/numarg.h"
#include "vm/base58.h"
#include "vm/tickmodel.h"

/* --timings-file: one JSON line per debug line, elapsed since start when its first chunk
 * arrived (the reference's format). */
static void timings_line(wd_cli_pvm *s)
{
    /* whole seconds, and the rest in nanoseconds rounded to a whole number (the reference's
     * timing_buffer.ml: Float.round) */
    double e = s->line_start - s->t0;
    long long secs = (long long)e, nanos = llround((e - (double)secs) * 1e9);
    if (nanos >= 1000000000)
        secs++, nanos -= 1000000000;
    json_t *j = json_pack("{s{sIsI}ss#}", "elapsed", "secs", (json_int_t)secs, "nanos",
                          (json_int_t)nanos, "message", s->line, s->line_size);
    char *text = j ? json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    if (text != NULL)
        fprintf(s->timings, "%s\n", text);
    free(text);
    json_decref(j);
    s->line_size = 0;
}

static void on_debug(void *ud, const uint8_t *bytes, size_t size)
{
    wd_cli_pvm *s = ud;
    /* The reference debugger's directives (`__wasm_debugger__::start_section(...)`) are
     * meant for the profiler, not the reader: wasmdbg does not print them. */
    static const char directive[] = "__wasm_debugger__::";
    if (size >= sizeof directive - 1 && memcmp(bytes, directive, sizeof directive - 1) == 0)
        return;
    if (s->timings != NULL) {
        for (size_t i = 0; i < size; i++) {
            if (s->line_size == 0)
                s->line_start = wd_clock_seconds();
            if (bytes[i] == '\n' || s->line_size == sizeof s->line - 1)
                timings_line(s);
            if (bytes[i] != '\n')
                s->line[s->line_size++] = (char)bytes[i];
        }
        return;
    }
    if (s->kernel_debug && size != 0) {
        FILE *f = s->debug_to_stderr ? stderr : stdout;
        fwrite(bytes, 1, size, f);
        fflush(f);
        s->debug_mid_line = bytes[size - 1] != '\n';
    }
}

static const char *value_of(int argc, char **argv, int *i, const char *name, const char *alias)
{
    if (strcmp(argv[*i], name) != 0 && !(alias && strcmp(argv[*i], alias) == 0))
        return NULL;
    if (*i + 1 >= argc)
        return "";
    return argv[++*i];
}

static int usage(const char *help, const char *fmt, const char *arg)
{
    fprintf(stderr, "wasmdbg: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n%s", help);
    return WD_EXIT_USAGE;
}

/* One `set` instruction of an installer config. */
static wd_status installer_set(wd_cli_pvm *s, const char *value, const char *to, int line,
                               wd_error *err)
{
    const char *path = s->installer_path;
    size_t n = strlen(value);
    uint8_t *bytes = malloc(n / 2 + 1);
    if (bytes == NULL)
        return wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    if (n % 2 != 0 || !wd_hex_decode(value, n / 2, bytes)) {
        free(bytes);
        return wd_fail(err, WD_ERR_USAGE, 0, "%s%s%.0d: `value` is not hexadecimal", path,
                       line ? ":" : "", line);
    }
    size_t tn = strlen(to);
    if (wd_durable_check_key(to, tn, false) != 0 ||
        (tn >= 9 && strncmp(to, "/readonly", 9) == 0 && (tn == 9 || to[9] == '/'))) {
        free(bytes);
        return wd_fail(err, WD_ERR_USAGE, 0, "%s%s%.0d: `to` is not a writable durable key: %s",
                       path, line ? ":" : "", line, to);
    }
    int rc = wd_durable_set(wd_pvm_durable(s->pvm), to, tn, bytes, n / 2);
    free(bytes);
    return rc == 0 ? WD_OK : wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
}

static wd_status installer_json(wd_cli_pvm *s, wd_error *err)
{
    json_error_t je;
    json_t *doc = json_load_file(s->installer_path, 0, &je);
    if (doc == NULL)
        return wd_fail(err, WD_ERR_USAGE, 0, "%s:%d:%d: %s", s->installer_path, je.line,
                       je.column, je.text);
    json_t *ins = json_object_get(doc, "instructions");
    wd_status st = json_is_array(ins) ? WD_OK
                                      : wd_fail(err, WD_ERR_USAGE, 0,
                                                "%s: expected {\"instructions\": [...]}",
                                                s->installer_path);
    for (size_t i = 0; st == WD_OK && i < json_array_size(ins); i++) {
        json_t *set = json_object_get(json_array_get(ins, i), "set");
        const char *value = json_string_value(json_object_get(set, "value"));
        const char *to = json_string_value(json_object_get(set, "to"));
        if (to == NULL)
            st = wd_fail(err, WD_ERR_USAGE, 0,
                         "%s: instruction %zu: only {\"set\": {\"value\": HEX, \"to\": KEY}} "
                         "is supported",
                         s->installer_path, i);
        else
            st = installer_set(s, value ? value : "", to, 0, err);
    }
    json_decref(doc);
    return st;
}

/* Replaces *dst (malloc'd or NULL) by a copy of src; false when out of memory. */
static bool set_copy(char **dst, const char *src)
{
    char *c = strdup(src);
    if (c == NULL)
        return false;
    free(*dst);
    *dst = c;
    return true;
}

/* The YAML form the SDK writes: `instructions:` then `- set:` items with `value:` and `to:`.
 * Lines are read whole, however long (a value is hex: two characters a byte). */
static wd_status installer_yaml(wd_cli_pvm *s, wd_error *err)
{
    FILE *f = fopen(s->installer_path, "r");
    if (f == NULL)
        return wd_fail(err, WD_ERR_IO, 0, "%s: cannot open: %s", s->installer_path,
                       strerror(errno));
    char *line = NULL, *value = NULL, *to = NULL;
    size_t cap = 0;
    int n = 0, pending = 0;
    wd_status st = WD_OK;
    while (st == WD_OK && getline(&line, &cap, f) >= 0) {
        n++;
        char *p = line + strspn(line, " \t");
        p[strcspn(p, "\r\n")] = '\0';
        bool ok = true;
        if (*p == '#' || *p == '\0' || strcmp(p, "instructions:") == 0)
            continue;
        if (strncmp(p, "- set:", 6) == 0) {
            if (pending)
                st = installer_set(s, value ? value : "", to ? to : "", pending, err);
            pending = n;
            free(value);
            free(to);
            value = to = NULL;
        } else if (pending && strncmp(p, "value:", 6) == 0) {
            char *v = p + 6 + strspn(p + 6, " \"'");
            v[strcspn(v, "\"' ")] = '\0';
            ok = set_copy(&value, v);
        } else if (pending && strncmp(p, "to:", 3) == 0) {
            char *v = p + 3 + strspn(p + 3, " \"'");
            v[strcspn(v, "\"' ")] = '\0';
            ok = set_copy(&to, v);
        } else {
            st = wd_fail(err, WD_ERR_USAGE, 0, "%s:%d: expected `- set:`, `value:` or `to:`",
                         s->installer_path, n);
        }
        if (!ok)
            st = wd_fail(err, WD_ERR_NOMEM, 0, "out of memory");
    }
    if (st == WD_OK && pending)
        st = installer_set(s, value ? value : "", to ? to : "", pending, err);
    free(line);
    free(value);
    free(to);
    fclose(f);
    return st;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A `return` that leaves values below its results in its block: Octez's PVM hands them all
 * to the caller (eval.ml, Returning is not trimmed), so the caller's next instructions see
 * other values than WebAssembly says, and its later joins cost more. wasmdbg runs such code
 * as the specification says: it says so (docs/ticks.md, "Not modelled"). Compilers do not
 * emit such returns; hand-written text can. */
static void warn_garbage_returns(const char *path, const wd_module *m)
{
    if (m == NULL)
        return;
    for (uint32_t i = m->import_func_count; i < m->func_count; i++) {
        const wd_code *c = m->funcs[i].code;
        if (c == NULL || c->garbage_at == 0)
            continue;
        char name[96];
        fprintf(stderr,
                "wasmdbg: warning: %s: %s returns at 0x%x with values below its results in "
                "its block; the Octez PVM hands those values to the caller, whose later "
                "instructions then see other values and cost more ticks: from there on, "
                "wasmdbg (which runs it as WebAssembly specifies) and the PVM differ\n",
                path, wd_module_func_name(m, i, name, sizeof name), c->garbage_at - 1);
        return;
    }
}

int wd_cli_pvm_start(wd_cli_pvm *s, int argc, char **argv, const char *help,
                     bool debug_to_stderr)
{
    return wd_cli_pvm_start_hooks(s, argc, argv, help, debug_to_stderr, NULL);
}

int wd_cli_pvm_start_hooks(wd_cli_pvm *s, int argc, char **argv, const char *help,
                           bool debug_to_stderr, const wd_hooks *hooks)
{
    memset(s, 0, sizeof *s);
    wd_ctx_init(&s->ctx);
    s->kernel_debug = true;
    s->debug_to_stderr = debug_to_stderr;
    s->model_name = "pvm";
    s->cfg.version = WD_PVM_V6;
    s->cfg.preimage_dir = "preimage";
    s->cfg.dal_dir = "dal_pages";
    s->max_ticks = UINT64_MAX;
    s->t0 = wd_clock_seconds();
    const char *rollup = NULL, *version = NULL, *v;
    for (int i = 0; i < argc; i++) {
        const char *opt = argv[i]; /* value_of moves i to the value */
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(help, stdout);
            return WD_EXIT_OK;
        } else if ((v = value_of(argc, argv, &i, "--kernel", NULL)) != NULL) {
            s->kernel_path = v;
        } else if ((v = value_of(argc, argv, &i, "--inputs", NULL)) != NULL) {
            s->inputs_path = v;
        } else if ((v = value_of(argc, argv, &i, "--rollup", NULL)) != NULL) {
            rollup = v;
        } else if ((v = value_of(argc, argv, &i, "--preimage-dir", NULL)) != NULL) {
            s->cfg.preimage_dir = v;
        } else if ((v = value_of(argc, argv, &i, "--dal-pages-dir", NULL)) != NULL) {
            s->cfg.dal_dir = v;
        } else if ((v = value_of(argc, argv, &i, "--pvm-version", "-p")) != NULL) {
            version = v;
        } else if ((v = value_of(argc, argv, &i, "--installer-config", NULL)) != NULL) {
            s->installer_path = v;
        } else if ((v = value_of(argc, argv, &i, "--timings-file", NULL)) != NULL) {
            s->timings_path = v;
        } else if ((v = value_of(argc, argv, &i, "--flamecharts-dir", NULL)) != NULL) {
            s->flamecharts_dir = v;
        } else if ((v = value_of(argc, argv, &i, "--tick-model", NULL)) != NULL) {
            s->model_name = v;
        } else if ((v = value_of(argc, argv, &i, "--ticks-per-snapshot", NULL)) != NULL) {
            wd_error nerr;
            wd_error_clear(&nerr);
            if (wd_numarg_u64("--ticks-per-snapshot", v, 2, UINT64_MAX, &s->cfg.period,
                              &nerr) != WD_OK)
                return usage(help, "%s", nerr.msg);
        } else if ((v = value_of(argc, argv, &i, "--max-ticks", NULL)) != NULL) {
            wd_error err;
            wd_error_clear(&err);
            if (*v != '\0' && wd_numarg_u64("--max-ticks", v, 0, UINT64_MAX, &s->max_ticks,
                                             &err) != WD_OK)
                return usage(help, "%s", err.msg);
        } else if (strcmp(argv[i], "--no-kernel-debug") == 0) {
            s->kernel_debug = false;
        } else if (strcmp(argv[i], "--no-fuse") == 0) {
            s->cfg.no_fuse = true;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            return usage(help, "unknown option %s", argv[i]);
        } else if (s->kernel_path == NULL) {
            s->kernel_path = argv[i];
        } else {
            return usage(help, "unexpected argument %s", argv[i]);
        }
        if (v != NULL && *v == '\0')
            return usage(help, "%s needs a value", opt);
    }
    if (s->kernel_path == NULL)
        return usage(help, "%s", "A kernel file must be provided");
    if (version != NULL && (s->cfg.version = wd_pvm_version_parse(version)) < 0)
        return usage(help, "unknown PVM version %s (2.0.0 .. 2.0.0-r6)", version);
    wd_error err;
    wd_error_clear(&err);
    if (rollup != NULL) {
        wd_address_kind kind;
        if (wd_base58_decode_address(rollup, strlen(rollup), WD_ADDR_BIT(WD_ADDR_SR1), &kind,
                                     s->cfg.rollup, &err) != WD_OK) {
            fprintf(stderr,
                    "wasmdbg: Parameter '%s' is an invalid smart rollup address encoded in a "
                    "base58 string: %s\n",
                    rollup, err.msg);
            return WD_EXIT_USAGE;
        }
    }
    wd_status st = wd_tickmodel_get(s->model_name, &s->costs, &err);
    if (st == WD_OK)
        st = wd_cli_read_module(&s->ctx, s->kernel_path, &s->kernel, &s->kernel_size, &err);
    if (st == WD_OK && s->inputs_path != NULL)
        st = wd_inputs_load(&s->ctx, s->inputs_path, s->cfg.rollup, &s->inputs, &err);
    if (st == WD_OK && s->timings_path != NULL && (s->timings = fopen(s->timings_path, "w")) == NULL)
        st = wd_fail(&err, WD_ERR_IO, 0, "%s: cannot write: %s", s->timings_path,
                     strerror(errno));
    s->cfg.costs = &s->costs;
    s->cfg.hooks = hooks;
    s->cfg.debug = on_debug;
    s->cfg.debug_ud = s;
    if (st == WD_OK) {
        st = wd_pvm_new(&s->ctx, &s->cfg, s->kernel, s->kernel_size, &s->pvm, &err);
        if (st != WD_OK) {
            char msg[sizeof err.msg];
            size_t offset = err.offset;
            snprintf(msg, sizeof msg, "%s", err.msg);
            wd_error_clear(&err);
            wd_fail(&err, st, offset, "%s:0x%zx: %s: %s", s->kernel_path, offset,
                    wd_status_name(st), msg);
        }
    }
    if (st == WD_OK) {
        warn_garbage_returns(s->kernel_path, wd_pvm_module(s->pvm));
        /* for the determinism tests (tests/octez/determinism.sh): no block charging */
        const char *slow = getenv("WD_ALWAYS_SLOW");
        wd_pvm_thread(s->pvm)->always_slow = slow != NULL && strcmp(slow, "1") == 0;
    }
    if (st == WD_OK && s->installer_path != NULL) {
        if (has_suffix(s->installer_path, ".json"))
            st = installer_json(s, &err);
        else if (has_suffix(s->installer_path, ".yaml") || has_suffix(s->installer_path, ".yml"))
            st = installer_yaml(s, &err);
        else
            st = wd_fail(&err, WD_ERR_USAGE, 0, "%s: Expecting either a .yaml of .json file",
                         s->installer_path);
    }
    if (st != WD_OK) {
        fprintf(stderr, "wasmdbg: %s\n", err.msg);
        wd_cli_pvm_finish(s);
        return WD_EXIT_USAGE;
    }
    return -1;
}

/* Ctrl-C while kernels run: the first asks the kernel run to stop at its next block
 * boundary or call (the thread's pending flag), so that a kernel that loops (the PVM would
 * give it a whole period: 50e12 ticks) can be stopped and shown where it was; a second one
 * ends the process as Ctrl-C always does. */
static wd_thread *volatile sigint_thread;

static void on_sigint(int sig)
{
    wd_thread *t = sigint_thread;
    if (t == NULL || t->pending) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    t->pending = 1;
}

uint64_t wd_cli_pvm_used(const wd_cli_pvm *s)
{
    uint32_t n;
    const wd_run_report *runs = wd_pvm_runs(s->pvm, &n);
    uint64_t used = 0;
    for (uint32_t i = 0; i < n; i++)
        used += runs[i].effective;
    const wd_run_report *cur = wd_pvm_current_run(s->pvm);
    if (cur != NULL)
        used += wd_pvm_ticks(s->pvm) - cur->start;
    return used;
}

void wd_cli_pvm_mark_stop(wd_cli_pvm *s, const char *cause)
{
    wd_cli_pvm_stop *x = &s->stop;
    memset(x, 0, sizeof *x);
    x->on = true;
    x->tick = wd_pvm_ticks(s->pvm);
    x->total = wd_cli_pvm_used(s);
    if (cause == NULL)
        snprintf(x->cause, sizeof x->cause, "--max-ticks %" PRIu64 " reached", s->max_ticks);
    else
        snprintf(x->cause, sizeof x->cause, "%s", cause);
    const wd_run_report *cur = wd_pvm_current_run(s->pvm);
    x->in_run = cur != NULL;
    if (cur != NULL) {
        x->run = *cur;
        x->run.effective = x->tick - cur->start;
        x->run.outcome = WD_RUN_STUCK;
        x->run.backtrace_count = x->run.backtrace_more = 0;
        snprintf(x->run.reason, sizeof x->run.reason, "stopped at tick %" PRIu64 ": %s", x->tick,
                 x->cause);
        return;
    }
    /* between runs: the run due is the next of the current level */
    uint32_t n;
    const wd_run_report *runs = wd_pvm_runs(s->pvm, &n);
    x->run.level = wd_pvm_level(s->pvm) > 0 ? wd_pvm_level(s->pvm) - 1 : 0;
    for (uint32_t i = 0; i < n; i++)
        x->run.index += runs[i].level == x->run.level;
    x->run.start = x->tick;
    x->run.outcome = WD_RUN_STUCK;
    snprintf(x->run.reason, sizeof x->run.reason,
             "stopped at tick %" PRIu64 ": %s, before kernel run %u of level %u", x->tick,
             x->cause, x->run.index, x->run.level);
}

uint32_t wd_cli_pvm_run_count(const wd_cli_pvm *s)
{
    uint32_t n;
    (void)wd_pvm_runs(s->pvm, &n);
    return n + (s->stop.on && s->stop.in_run);
}

const wd_run_report *wd_cli_pvm_run_get(const wd_cli_pvm *s, uint32_t i)
{
    uint32_t n;
    const wd_run_report *runs = wd_pvm_runs(s->pvm, &n);
    return i < n ? &runs[i] : &s->stop.run;
}

/* Kernel runs under --max-ticks or a watch, until input is needed (or, with `one_run`, the
 * first run is over). Every step is one wd_pvm_advance: a kernel run's decode, link and init
 * (one step of the PVM), then its kernel_run in slices of ticks the limits allow, then its
 * end (padding, reboot or yield); the limits are looked at between them. */
static wd_status drive_limited(wd_cli_pvm *s, bool one_run, wd_error *err)
{
    wd_pvm *p = s->pvm;
    uint32_t runs_before;
    (void)wd_pvm_runs(p, &runs_before);
    for (;;) {
        if (s->stop.on)
            return wd_fail(err, WD_OUT_OF_TICKS, 0, "%s", s->stop.run.reason);
        wd_pvm_state state = wd_pvm_get_state(p);
        uint32_t runs_now;
        (void)wd_pvm_runs(p, &runs_now);
        if (one_run && state == WD_PVM_SNAPSHOT && runs_now > runs_before)
            return WD_OK;
        bool running = wd_pvm_running(p);
        wd_pvm_goal goal = WD_GOAL_KERNEL_RUN; /* a kernel_run over: its run ends, no code */
        uint64_t n = 0, room = UINT64_MAX, now = wd_pvm_ticks(p);
        bool by_max = false;
        if (state == WD_PVM_SNAPSHOT || running) {
            char cause[sizeof s->stop.cause];
            if (s->watch != NULL && s->watch(s->watch_ud, s, &room, cause, sizeof cause)) {
                wd_cli_pvm_mark_stop(s, cause);
                continue;
            }
            uint64_t used = wd_cli_pvm_used(s);
            if (used >= s->max_ticks) {
                wd_cli_pvm_mark_stop(s, NULL);
                continue;
            }
            by_max = s->max_ticks - used <= room;
            goal = WD_GOAL_TICKS;
            /* from a Snapshot, one tick asked for runs decode, link and init only */
            n = state == WD_PVM_SNAPSHOT ? 1 : WD_MAX(WD_MIN(room, s->max_ticks - used), 1);
            n = WD_MIN(n, UINT64_MAX - now);
        }
        wd_pvm_stop stop;
        WD_TRY(wd_pvm_advance(p, goal, n, &stop, err));
        if (stop == WD_STOP_PAUSED && wd_pvm_thread(p)->pending)
            return wd_fail(err, WD_PAUSED, 0, "interrupted at tick %" PRIu64, wd_pvm_ticks(p));
        if (stop == WD_STOP_INPUT || stop == WD_STOP_STUCK)
            return WD_OK;
        /* kernel_run stopped short of the ticks asked for and goes on: its next instruction
         * would end past them. Under --max-ticks that is the stop; a watch's bound is only
         * certainly exceeded after that instruction, which the next advance runs. */
        if (running && by_max && stop == WD_STOP_GOAL && wd_pvm_running(p) &&
            wd_pvm_ticks(p) - now < n)
            wd_cli_pvm_mark_stop(s, NULL);
    }
}

static bool limited(const wd_cli_pvm *s)
{
    return s->max_ticks != UINT64_MAX || s->watch != NULL;
}

/* Runs the kernel runs due with Ctrl-C caught (see on_sigint); `one_run` only when limited. */
static wd_status drive(wd_cli_pvm *s, bool one_run, wd_error *err)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigint_thread = wd_pvm_thread(s->pvm);
    sigaction(SIGINT, &sa, &old);
    wd_status st = limited(s) ? drive_limited(s, one_run, err)
                              : wd_pvm_run_until_input(s->pvm, s->on_run, s->on_run_ud, err);
    sigaction(SIGINT, &old, NULL);
    sigint_thread = NULL;
    return st;
}

wd_status wd_cli_pvm_step_inbox(wd_cli_pvm *s, bool *more, wd_error *err)
{
    const wd_inbox *inbox = NULL;
    *more = s->inputs != NULL && s->next_inbox < s->inputs->count;
    if (*more)
        inbox = &s->inputs->inboxes[s->next_inbox++];
    WD_TRY(wd_pvm_load_inbox(s->pvm, inbox, err));
    return drive(s, false, err);
}

wd_status wd_cli_pvm_run_first(wd_cli_pvm *s, wd_error *err)
{
    const wd_inbox *inbox =
        s->inputs != NULL && s->inputs->count > 0 ? &s->inputs->inboxes[0] : NULL;
    WD_TRY(wd_pvm_load_inbox(s->pvm, inbox, err));
    if (!limited(s)) /* as it always was: wd_pvm_kernel_run, which Ctrl-C does not stop */
        return wd_pvm_kernel_run(s->pvm, err);
    return drive(s, true, err);
}

/* `wasmdbg: WHAT at tick T (level L, kernel run K, N ticks into it)[: CAUSE]`, then the call
 * stack with module offsets, and source lines when `loc` finds them. */
static void print_where(wd_cli_pvm *s, const char *what, const char *cause, wd_srcloc_fn loc,
                        void *loc_ud)
{
    enum { SHOWN = 20 };
    wd_thread *t = wd_pvm_thread(s->pvm);
    const wd_run_report *r = wd_pvm_current_run(s->pvm);
    if (s->debug_mid_line) /* the kernel's last debug line is left open */
        fputc('\n', s->debug_to_stderr ? stderr : stdout);
    s->debug_mid_line = false;
    fflush(stdout);
    fprintf(stderr, "wasmdbg: %s at tick %" PRIu64, what, t->ticks);
    if (r != NULL)
        fprintf(stderr, " (level %u, kernel run %u, %" PRIu64 " ticks into it)", r->level,
                r->index, t->ticks - r->start);
    if (cause != NULL)
        fprintf(stderr, ": %s", cause);
    fputc('\n', stderr);
    wd_snapshot snap;
    wd_error err;
    if (wd_snapshot_take(&s->ctx, t, &snap, &err) != WD_OK)
        return;
    for (uint32_t i = 0; i < snap.count && i < SHOWN; i++) {
        wd_snapshot_entry e;
        wd_snapshot_entry_get(&snap, i, loc, loc_ud, &e);
        fprintf(stderr, "  %s %s", i == 0 ? "in" : "called from", e.func_name);
        if (e.kind != WD_FRAME_HOST)
            fprintf(stderr, " (module offset 0x%x)", e.offset);
        if (e.file != NULL)
            fprintf(stderr, " at %s:%u", e.file, e.line);
        fputc('\n', stderr);
    }
    if (snap.count > SHOWN)
        fprintf(stderr, "  ... %u more frames\n", snap.count - SHOWN);
    wd_snapshot_free(&s->ctx, &snap);
}

void wd_cli_pvm_print_interrupt(wd_cli_pvm *s, wd_srcloc_fn loc, void *loc_ud)
{
    print_where(s, "interrupted", NULL, loc, loc_ud);
}

void wd_cli_pvm_print_stop(wd_cli_pvm *s, wd_srcloc_fn loc, void *loc_ud)
{
    if (!s->stop.in_run) {
        fflush(stdout);
        fprintf(stderr, "wasmdbg: %s\n", s->stop.run.reason);
        return;
    }
    print_where(s, "stopped", s->stop.cause, loc, loc_ud);
}

json_t *wd_cli_pvm_stop_json(const wd_cli_pvm *s)
{
    if (!s->stop.on)
        return json_null();
    return json_pack("{sssIsIsIsb}", "reason", s->stop.run.reason, "tick",
                     (json_int_t)s->stop.tick, "level", (json_int_t)s->stop.run.level,
                     "kernel_run", (json_int_t)s->stop.run.index, "in_run", s->stop.in_run);
}

wd_status wd_cli_pvm_run_all(wd_cli_pvm *s, wd_error *err)
{
    uint32_t count = s->inputs ? s->inputs->count : 0;
    for (uint32_t i = 0; i < count && wd_pvm_get_state(s->pvm) != WD_PVM_STUCK; i++) {
        bool more;
        WD_TRY(wd_cli_pvm_step_inbox(s, &more, err));
    }
    return WD_OK;
}

/* mkdir -p: each missing component of `path` in turn. */
static int make_dirs(const char *path)
{
    size_t n = strlen(path);
    char *buf = malloc(n + 1);
    if (buf == NULL)
        return ENOMEM;
    memcpy(buf, path, n + 1);
    int rc = 0;
    for (size_t i = 1; i <= n && rc == 0; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        struct stat st;
        if (stat(buf, &st) != 0 && mkdir(buf, 0777) != 0 && errno != EEXIST)
            rc = errno;
        buf[i] = c;
    }
    free(buf);
    return rc;
}

bool wd_cli_pvm_out_dir(const char *option, const char *dir)
{
    struct stat st;
    int rc = make_dirs(dir);
    if (rc != 0) {
        fprintf(stderr, "wasmdbg: %s %s: cannot create the directory: %s\n", option, dir,
                strerror(rc));
        return false;
    }
    if (stat(dir, &st) != 0)
        rc = errno;
    else if (!S_ISDIR(st.st_mode))
        rc = ENOTDIR;
    else if (access(dir, W_OK | X_OK) != 0)
        rc = errno;
    if (rc != 0) {
        fprintf(stderr, "wasmdbg: %s %s: cannot write the profile's files there: %s\n", option,
                dir, strerror(rc));
        return false;
    }
    return true;
}

void wd_cli_pvm_finish(wd_cli_pvm *s)
{
    if (s->timings != NULL) {
        if (s->line_size != 0)
            timings_line(s);
        fclose(s->timings);
        s->timings = NULL;
    }
    wd_pvm_free(s->pvm);
    s->pvm = NULL;
    wd_inputs_free(s->inputs);
    s->inputs = NULL;
    wd_free(&s->ctx, s->kernel);
    s->kernel = NULL;
}

bool wd_cli_pvm_had_failure(const wd_cli_pvm *s)
{
    uint32_t n;
    const wd_run_report *runs = wd_pvm_runs(s->pvm, &n);
    for (uint32_t i = 0; i < n; i++)
        if (runs[i].outcome != WD_RUN_OK)
            return true;
    return wd_pvm_stuck_reason(s->pvm) != NULL;
}
