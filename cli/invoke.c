/* invoke.c: `wasmdbg invoke MODULE FUNC [ARG...]`: instantiate a plain module (no PVM),
 * call one exported function and print its results and the ticks it cost.
 *
 * The module may import only from the spec tests' `spectest` module (vm/spectest.h).
 * Output (stdout): one result per line (`i32:15`), then `ticks: N`, the ticks the thread
 * charged for the start function (if any) and the call. A trap prints
 * `trap: MESSAGE in FUNCTION at 0xOFFSET` and `ticks: N` and exits 1; reaching
 * --max-ticks prints `out of ticks after N ticks` and exits 1. Bad usage or input prints
 * one line on stderr (`wasmdbg: FILE:0xOFFSET: category: message`) and exits 2.
 * --memory-hash adds `memory: N pages, fnv1a32 0xHHHHHHHH` (or `memory: none`) before the
 * ticks: a fingerprint of the final memory, to compare runs with other engines
 * (tests/difftest). */
#include "cli/cli.h"
#include "cli/numarg.h"
#include "decode/decode.h"
#include "eval/eval.h"
#include "link/link.h"
#include "vm/spectest.h"
#include "vm/tickmodel.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACK_SLOTS ((size_t)1 << 20)
#define MAX_FRAMES  60000u /* the PVM's call-depth limit */
#define MAX_PARAMS  1000u

typedef struct invoke_opts {
    const char *model;
    uint64_t max_ticks;
    bool step;
    bool memory_hash;
    const char *path;
    const char *func;
    char **args;
    int arg_count;
} invoke_opts;

typedef struct session {
    const invoke_opts *o;
    wd_ctx ctx;
    wd_costs costs;
    wd_module *module;
    uint8_t *bytes; /* the module file's, kept for its data segments (bytes_kept) */
    wd_store *store;
    wd_spectest spectest;
    wd_thread thread;
    bool thread_ready;
    wd_instance *inst;
} session;

static const char usage_text[] =
    "usage: wasmdbg invoke [OPTIONS] MODULE FUNC [ARG...]\n"
    "\n"
    "Instantiates MODULE (.wasm, or .wat/.wast converted with wat2wasm), which may import\n"
    "only from the `spectest` host module, calls its exported function FUNC and prints the\n"
    "results, one per line (i32:15), then the ticks charged (start function included).\n"
    "\n"
    "ARG: i32:5, i64:-1, f32:1.5, f64:0x1p-3, externref:7, funcref:null, externref:null,\n"
    "     or a bare number read as the parameter's type. Integers are decimal or 0x hex.\n"
    "\n"
    "options:\n"
    "  --tick-model NAME|FILE  the tick model: a built-in name or a JSON file (flat-1)\n"
    "  --max-ticks N           stop after N ticks: prints `out of ticks after N ticks`, exit 1\n"
    "  --step                  run one instruction at a time (same results and ticks)\n"
    "  --memory-hash           after the call (or its trap), print memory 0's size and the\n"
    "                          FNV-1a hash of its bytes: `memory: N pages, fnv1a32 0xHHHHHHHH`\n"
    "\n"
    "exit status: 0 results printed, 1 trap or out of ticks, 2 usage or input error\n";

static int usage_error(const char *fmt, ...) WD_PRINTF(1, 2);
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "wasmdbg: invoke: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see wasmdbg invoke --help)\n");
    va_end(ap);
    return WD_EXIT_USAGE;
}

/* `--name VALUE` or `--name=VALUE`; advances *i past a separate value. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] == '\0' && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

/* Returns -1 to go on, else the exit code. Positional arguments are gathered in argv. */
static int parse_opts(int argc, char **argv, invoke_opts *o)
{
    memset(o, 0, sizeof *o);
    o->model = "flat-1";
    o->max_ticks = UINT64_MAX;
    int n = 0;
    bool options = true;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (!options || strncmp(a, "--", 2) != 0) {
            argv[n++] = argv[i];
        } else if (strcmp(a, "--") == 0) {
            options = false;
        } else if (strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return WD_EXIT_OK;
        } else if (strcmp(a, "--step") == 0) {
            o->step = true;
        } else if (strcmp(a, "--memory-hash") == 0) {
            o->memory_hash = true;
        } else if ((v = option_value(argc, argv, &i, "--tick-model")) != NULL) {
            o->model = v;
        } else if ((v = option_value(argc, argv, &i, "--max-ticks")) != NULL) {
            wd_error err;
            wd_error_clear(&err);
            if (wd_numarg_u64("--max-ticks", v, 0, UINT64_MAX, &o->max_ticks, &err) != WD_OK)
                return usage_error("%s", err.msg);
        } else {
            return usage_error("unknown option \"%s\"", a);
        }
    }
    if (n < 2)
        return usage_error("%s", n == 0 ? "missing MODULE and FUNC" : "missing FUNC");
    o->path = argv[0];
    o->func = argv[1];
    o->args = argv + 2;
    o->arg_count = n - 2;
    return -1;
}

/* ---- arguments ---- */

/* A decimal or 0x-hex integer of 32 or 64 bits, signed or unsigned, as its bit pattern. */
static bool parse_int(const char *text, bool is64, uint64_t *out)
{
    bool neg = text[0] == '-';
    const char *p = text + (neg || text[0] == '+');
    unsigned base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (*p == '\0')
        return false;
    uint64_t v = 0;
    for (; *p != '\0'; p++) {
        int digit = wd_hex_digit(*p);
        if (digit < 0 || (unsigned)digit >= base)
            return false;
        unsigned d = (unsigned)digit;
        if (v > (UINT64_MAX - d) / base)
            return false;
        v = v * base + d;
    }
    uint64_t limit =
        neg ? (is64 ? (uint64_t)1 << 63 : (uint64_t)1 << 31) : (is64 ? UINT64_MAX : UINT32_MAX);
    if (v > limit)
        return false;
    v = neg ? 0 - v : v;
    *out = is64 ? v : (v & UINT32_MAX);
    return true;
}

static bool parse_float(const char *text, bool is32, uint64_t *out)
{
    char *end;
    if (*text == '\0')
        return false;
    if (is32) {
        float f = strtof(text, &end);
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        *out = bits;
    } else {
        double d = strtod(text, &end);
        memcpy(out, &d, sizeof d);
    }
    return *end == '\0';
}

static bool parse_ref(const char *text, uint8_t type, uint64_t *out)
{
    if (strcmp(text, "null") == 0) {
        *out = 0;
        return true;
    }
    uint64_t v; /* externref N is N + 1 in a slot (decode/code.h) */
    if (type != WD_EXTERNREF || !parse_int(text, true, &v) || text[0] == '-' || v == UINT64_MAX)
        return false;
    *out = v + 1;
    return true;
}

/* Parses argument `text` for a parameter of type `want`; 0 or an exit code. */
static int parse_arg(const char *text, uint8_t want, uint32_t idx, wd_val *out)
{
    const char *colon = strchr(text, ':');
    const char *value = text;
    if (colon != NULL && wd_valtype_parse(text, (size_t)(colon - text)) != 0) {
        uint8_t given = wd_valtype_parse(text, (size_t)(colon - text));
        value = colon + 1;
        if (given != want) {
            fprintf(stderr, "wasmdbg: invoke: argument %" PRIu32 " is %s, the parameter is %s\n",
                    idx + 1, wd_valtype_name(given), wd_valtype_name(want));
            return WD_EXIT_USAGE;
        }
    }
    bool ok = false;
    out->u64 = 0;
    if (want == WD_I32 || want == WD_I64)
        ok = parse_int(value, want == WD_I64, &out->u64);
    else if (want == WD_F32 || want == WD_F64)
        ok = parse_float(value, want == WD_F32, &out->u64);
    else if (want == WD_FUNCREF || want == WD_EXTERNREF)
        ok = parse_ref(value, want, &out->u64);
    if (!ok) {
        fprintf(stderr, "wasmdbg: invoke: argument %" PRIu32 ": \"%s\" is not a valid %s\n",
                idx + 1, text, wd_valtype_name(want));
        return WD_EXIT_USAGE;
    }
    return 0;
}

/* ---- results ---- */

/* The shortest decimal that reads back as the same value; nan, inf spelled out. */
static void format_float(char *buf, size_t cap, double v, bool is32, uint64_t bits)
{
    if (isnan(v)) {
        uint64_t payload = is32 ? bits & 0x7FFFFFu : bits & 0xFFFFFFFFFFFFFull;
        uint64_t canonical = is32 ? 0x400000u : 0x8000000000000ull;
        bool neg = is32 ? (bits >> 31) & 1 : bits >> 63;
        if (payload == canonical)
            snprintf(buf, cap, "%snan", neg ? "-" : "");
        else
            snprintf(buf, cap, "%snan:0x%" PRIx64, neg ? "-" : "", payload);
        return;
    }
    if (isinf(v)) {
        snprintf(buf, cap, "%sinf", v < 0 ? "-" : "");
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (is32 ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
            return;
    }
}

static void print_value(uint8_t type, const wd_val *slot)
{
    char buf[64];
    if (type == WD_I32) {
        printf("i32:%" PRId32 "\n", (int32_t)slot->u32);
    } else if (type == WD_I64) {
        printf("i64:%" PRId64 "\n", (int64_t)slot->u64);
    } else if (type == WD_F32) {
        float f;
        uint32_t bits = slot->u32;
        memcpy(&f, &bits, sizeof f);
        format_float(buf, sizeof buf, (double)f, true, bits);
        printf("f32:%s\n", buf);
    } else if (type == WD_F64) {
        double d;
        memcpy(&d, &slot->u64, sizeof d);
        format_float(buf, sizeof buf, d, false, slot->u64);
        printf("f64:%s\n", buf);
    } else if (type == WD_V128) {
        printf("v128:0x%016" PRIx64 "%016" PRIx64 "\n", slot[1].u64, slot[0].u64);
    } else if (slot->u64 == 0) {
        printf("%s:null\n", wd_valtype_name(type));
    } else if (type == WD_EXTERNREF) {
        printf("externref:%" PRIu64 "\n", slot->u64 - 1);
    } else {
        const wd_func *f = (const wd_func *)(uintptr_t)slot->u64;
        const char *name = f->inst != NULL
                               ? wd_module_func_name(f->inst->module, f->idx, buf, sizeof buf)
                               : f->host_name;
        printf("funcref:%s\n", name != NULL ? name : "?");
    }
}

/* --memory-hash: memory 0's size in pages and the 32-bit FNV-1a hash of all its bytes. */
static void print_memory_hash(const session *s)
{
    if (!s->o->memory_hash || s->inst == NULL)
        return;
    const wd_memory *mem = s->inst->memory;
    if (mem == NULL) {
        printf("memory: none\n");
        return;
    }
    uint32_t h = 0x811c9dc5u;
    for (uint64_t i = 0; i < mem->size; i++)
        h = (h ^ mem->data[i]) * 0x01000193u;
    printf("memory: %" PRIu64 " page%s, fnv1a32 0x%08" PRIx32 "\n", mem->pages,
           mem->pages == 1 ? "" : "s", h);
}

static void print_results(const session *s, const wd_functype *type)
{
    const wd_val *slots = wd_eval_results(&s->thread);
    uint32_t slot = 0;
    for (uint32_t i = 0; i < type->result_count; i++) {
        print_value(type->results[i], &slots[slot]);
        slot += type->results[i] == WD_V128 ? 2 : 1;
    }
    print_memory_hash(s);
    printf("ticks: %" PRIu64 "\n", s->thread.ticks);
}

/* ---- running ---- */

static int input_error(const session *s, wd_status st, const wd_error *err)
{
    fprintf(stderr, "wasmdbg: %s:0x%zx: %s: %s\n", s->o->path, err->offset, wd_status_name(st),
            err->msg);
    return WD_EXIT_USAGE;
}

/* How an invocation that did not finish ends: a trap or the tick limit (exit 1), or an
 * error (exit 2). */
static int report_stop(const session *s, wd_status st, const wd_error *err)
{
    if (st == WD_OUT_OF_TICKS) {
        printf("out of ticks after %" PRIu64 " ticks\n", s->thread.ticks);
        print_memory_hash(s);
        return WD_EXIT_FAILED;
    }
    if (st != WD_TRAP && st != WD_EXHAUSTED)
        return input_error(s, st, err);
    char name[128];
    if (err->func_idx != UINT32_MAX && err->func_idx < s->module->func_count)
        printf("trap: %s in %s at 0x%zx\n", err->msg,
               wd_module_func_name(s->module, err->func_idx, name, sizeof name), err->offset);
    else
        printf("trap: %s at 0x%zx\n", err->msg, err->offset);
    print_memory_hash(s);
    printf("ticks: %" PRIu64 "\n", s->thread.ticks);
    return WD_EXIT_FAILED;
}

static wd_status run(session *s, wd_func *f, const wd_val *args, wd_error *err)
{
    wd_thread *t = &s->thread;
    t->single_step = s->o->step;
    wd_status st = wd_eval_invoke(t, f, args, err);
    while (st == WD_PAUSED && s->o->step) {
        wd_error_clear(err);
        st = wd_eval_resume(t, err);
    }
    return st;
}

/* Tick model, module bytes, decode. Returns -1 to go on, else the exit code. */
static int load(session *s, wd_error *err)
{
    wd_status st = wd_tickmodel_get(s->o->model, &s->costs, err);
    if (st != WD_OK) {
        fprintf(stderr, "wasmdbg: %s\n", err->msg);
        return WD_EXIT_USAGE;
    }
    size_t size;
    st = wd_cli_read_module(&s->ctx, s->o->path, &s->bytes, &size, err);
    if (st != WD_OK) {
        fprintf(stderr, "wasmdbg: %s\n", err->msg);
        return WD_EXIT_USAGE;
    }
    /* a data segment is then written once, into memory, not twice (bench's data1m, 1 MiB:
     * 863 page faults -> 606, 2.78 -> 1.95 ms) */
    wd_decode_opts dopts = {.costs = &s->costs, .pvm = false, .bytes_kept = true};
    st = wd_decode_module(&s->ctx, s->bytes, size, &dopts, &s->module, err);
    return st == WD_OK ? -1 : input_error(s, st, err);
}

/* Store, imports, instance, thread, start function. -1 to go on, else the exit code. */
static int instantiate(session *s, wd_error *err)
{
    const wd_module *m = s->module;
    s->store = wd_store_new(&s->ctx);
    if (s->store == NULL)
        return input_error(s, wd_fail(err, WD_ERR_NOMEM, 0, "out of memory"), err);
    wd_status st = wd_spectest_init(&s->spectest, s->store, err);
    wd_extern *externs = NULL;
    if (st == WD_OK) {
        externs = wd_calloc(&s->ctx, m->import_count + 1u, sizeof *externs);
        st = externs == NULL ? wd_fail(err, WD_ERR_NOMEM, 0, "out of memory") : WD_OK;
    }
    if (st == WD_OK)
        st = wd_link_resolve(m, wd_spectest_resolve, &s->spectest, externs, err);
    if (st == WD_OK)
        st = wd_link_instantiate(s->store, m, externs, &s->inst, err);
    wd_free(&s->ctx, externs);
    if (st == WD_OK) {
        st = wd_thread_init(&s->thread, &s->ctx, STACK_SLOTS, MAX_FRAMES, &s->costs, err);
        s->thread_ready = st == WD_OK;
        s->thread.tick_limit = s->o->max_ticks;
    }
    if (st == WD_OK && m->has_start) {
        wd_val none[1] = {{0}};
        st = run(s, s->inst->funcs[m->start_idx], none, err);
    }
    return st == WD_OK ? -1 : report_stop(s, st, err);
}

static wd_func *find_func(const session *s)
{
    const wd_module *m = s->module;
    for (uint32_t i = 0; i < m->export_count; i++)
        if (m->exports[i].kind == WD_EXTERN_FUNC && strcmp(m->exports[i].name, s->o->func) == 0)
            return s->inst->exports[i].u.func;
    fprintf(stderr, "wasmdbg: %s: no exported function \"%s\"", s->o->path, s->o->func);
    const char *sep = " (exported functions: ";
    for (uint32_t i = 0; i < m->export_count; i++) {
        if (m->exports[i].kind == WD_EXTERN_FUNC) {
            fprintf(stderr, "%s%s", sep, m->exports[i].name);
            sep = ", ";
        }
    }
    fprintf(stderr, "%s\n", sep[0] == ',' ? ")" : " (it exports no function)");
    return NULL;
}

static int call(session *s, wd_error *err)
{
    wd_func *f = find_func(s);
    if (f == NULL)
        return WD_EXIT_USAGE;
    const wd_functype *type = f->type;
    if ((uint32_t)s->o->arg_count != type->param_count || type->param_count > MAX_PARAMS) {
        fprintf(stderr, "wasmdbg: invoke: %s takes %" PRIu32 " argument%s, got %d\n", s->o->func,
                type->param_count, type->param_count == 1 ? "" : "s", s->o->arg_count);
        return WD_EXIT_USAGE;
    }
    wd_val *args = wd_calloc(&s->ctx, 2u * type->param_count + 1u, sizeof *args);
    if (args == NULL)
        return input_error(s, wd_fail(err, WD_ERR_NOMEM, 0, "out of memory"), err);
    int code = 0;
    uint32_t slot = 0;
    for (uint32_t i = 0; i < type->param_count && code == 0; i++) {
        code = parse_arg(s->o->args[i], type->params[i], i, &args[slot]);
        slot += type->params[i] == WD_V128 ? 2 : 1;
    }
    wd_status st = code == 0 ? run(s, f, args, err) : WD_OK;
    wd_free(&s->ctx, args);
    if (code != 0)
        return code;
    if (st != WD_OK)
        return report_stop(s, st, err);
    print_results(s, type);
    return WD_EXIT_OK;
}

int wd_cli_invoke(int argc, char **argv)
{
    invoke_opts o;
    int code = parse_opts(argc, argv, &o);
    if (code >= 0)
        return code;
    session s;
    memset(&s, 0, sizeof s);
    s.o = &o;
    wd_ctx_init(&s.ctx);
    wd_error err;
    wd_error_clear(&err);
    code = load(&s, &err);
    if (code < 0)
        code = instantiate(&s, &err);
    if (code < 0)
        code = call(&s, &err);
    if (s.thread_ready)
        wd_thread_fini(&s.thread);
    wd_store_free(s.store);
    wd_module_free(s.module);
    wd_free(&s.ctx, s.bytes);
    fflush(stdout);
    return code;
}
