/* loadtime.c: times wasmdbg's load phases in process, for `make bench`.
 *
 *   loadtime [--reps N] [--threads N] [--header] [--once] FILE... [--pvm FILE...]
 *            [--inputs FILE...]
 *
 * For each module: decode (read, validate and translate every body, with the pvm tick
 * model summed into block charges; in PVM mode, floats rejected, for the files after
 * --pvm) and, when the module has no imports, instantiation (store, link, memories,
 * tables, globals, segments; not the start function), each repeated N times (default 61).
 * Prints a markdown table row per module (--header: the table's header first): size,
 * decode time median (min-max), decode speed, instantiation time median (min-max), and
 * the heap decoding takes: its peak, and what the decoded module keeps.
 *
 * The file is read once, before timing; times are CLOCK_MONOTONIC. The heap is counted by
 * a context allocator of our own, in one more decode outside the timed ones: the bytes
 * asked for, which include, for each arena chunk of 4 MiB or more, the 2 MiB of address
 * space that places its memory on a huge page (base/alloc.c's new_chunk; never touched,
 * so not resident: big.wasm's decode shows about 15 MB more than it keeps in memory).
 *
 * Why 61 loads: this machine's speed moves in spells of seconds (bench/README.md), and the
 * median of 11 decodes of big.wasm (0.6 s) took 107-157 MB/s in twelve runs where that of
 * 61 (2.8 s) took 135-157, as the kernel rows of the runner take 61 runs for the same
 * reason. Inputs files are parsed 11 times (--reps sets both): each parse takes 0.1 s.
 *
 * --threads N: translate the bodies on N threads (default 0: as many as the CPUs, up to 4).
 *
 * --once: decode each module once and print nothing (errors aside), for instruction counts
 * of decoding alone: `valgrind --tool=callgrind loadtime --once big.wasm`.
 *
 * --inputs: the files after it are inputs files (the reference debugger's JSON), each parsed
 * 11 times (or N) in process (wd_inputs_parse, the text read before timing): a second table
 * with their inboxes and messages, the parse time median (min-max), its speed, and the heap
 * parsing takes, peak and kept, jansson's allocations included. */
#include "decode/decode.h"
#include "link/link.h"
#include "vm/inputs.h"
#include "vm/tickmodel.h"

#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_REPS = 1000 };
#define DASHES "--------------------------------"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Sorts v and returns its median. */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    uint8_t *data = NULL;
    size_t cap = 0, used = 0, got;
    do {
        if (used == cap) {
            cap = cap ? cap * 2 : 1 << 20;
            uint8_t *grown = realloc(data, cap);
            if (grown == NULL) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = grown;
        }
        got = fread(data + used, 1, cap - used, f);
        used += got;
    } while (got > 0);
    fclose(f);
    *size = used;
    return data;
}

/* The peak heap of a decode, and what the module keeps, in bytes; false on an error. */
static bool measure_heap(const uint8_t *bytes, size_t size, const wd_decode_opts *opts,
                         size_t *peak, size_t *kept)
{
    wd_meter hm;
    wd_ctx ctx;
    wd_ctx_metered(&ctx, &hm, 0);
    wd_error err;
    wd_error_clear(&err);
    wd_module *m = NULL;
    wd_status st = wd_decode_module(&ctx, bytes, size, opts, &m, &err);
    *peak = hm.peak;
    *kept = hm.now;
    wd_module_free(m);
    return st == WD_OK;
}

/* jansson's allocations, counted with the context's while an inputs file is measured:
 * its functions take no user data, so the meter is this global. */
static wd_meter *json_meter;

static void *json_malloc(size_t size)
{
    return json_meter != NULL ? wd_meter_realloc(json_meter, NULL, size) : malloc(size);
}

static void json_free(void *ptr)
{
    if (json_meter != NULL)
        (void)wd_meter_realloc(json_meter, ptr, 0);
    else
        free(ptr);
}

/* Parses an inputs file N times (--inputs) and prints its row; false on an error, printed. */
static bool measure_inputs(const char *path, int reps)
{
    size_t size = 0;
    char *text = (char *)read_file(path, &size);
    if (text == NULL) {
        fprintf(stderr, "loadtime: cannot read %s\n", path);
        return false;
    }
    double ms[MAX_REPS];
    wd_meter hm = {0};
    size_t kept = 0, messages = 0, inboxes = 0;
    bool ok = true;
    for (int i = 0; i <= reps && ok; i++) { /* the last parse is metered, not timed */
        wd_ctx ctx;
        if (i == reps) {
            wd_ctx_metered(&ctx, &hm, 0);
            json_meter = &hm;
        } else {
            wd_ctx_init(&ctx);
        }
        wd_error err;
        wd_error_clear(&err);
        wd_inputs *in = NULL;
        double t0 = now_ms();
        wd_status st = wd_inputs_parse(&ctx, path, text, size, NULL, &in, &err);
        if (i < reps)
            ms[i] = now_ms() - t0;
        json_meter = NULL;
        if (st != WD_OK) {
            fprintf(stderr, "loadtime: %s: %s\n", wd_status_name(st), err.msg);
            ok = false;
        } else if (i == reps) {
            kept = hm.now;
            inboxes = in->count;
            for (uint32_t b = 0; b < in->count; b++)
                messages += in->inboxes[b].count;
        }
        wd_inputs_free(in);
    }
    free(text);
    if (!ok)
        return false;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    double mb = (double)size / 1e6, d = median(ms, reps); /* sorts ms */
    char time_text[64], heap_text[64];
    snprintf(time_text, sizeof time_text, "%.2f (%.2f-%.2f)", d, ms[0], ms[reps - 1]);
    snprintf(heap_text, sizeof heap_text, "%.1f / %.1f", (double)hm.peak / 1e6, (double)kept / 1e6);
    printf("| %-24s | %7.2f | %7zu | %8zu | %24s | %7.1f | %17s |\n", base, mb, inboxes, messages,
           time_text, mb / (d / 1e3), heap_text);
    return true;
}

static wd_status no_imports(void *ud, const wd_import *imp, wd_extern *out, wd_error *err)
{
    (void)ud;
    (void)imp;
    (void)out;
    return wd_fail(err, WD_ERR_UNLINKABLE, 0, "unknown import");
}

/* Decodes (and instantiates) once; times in ms into *decode and *inst (< 0: not done).
 * Returns false on any error, printed. */
static bool load_once(const char *path, const uint8_t *bytes, size_t size,
                      const wd_decode_opts *opts, double *decode, double *inst)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_module *m = NULL;
    double t0 = now_ms();
    wd_status st = wd_decode_module(&ctx, bytes, size, opts, &m, &err);
    *decode = now_ms() - t0;
    *inst = -1;
    if (st == WD_OK && m->import_count == 0) {
        t0 = now_ms();
        wd_store *s = wd_store_new(&ctx);
        wd_extern none[1];
        wd_instance *instance = NULL;
        st = s == NULL ? wd_fail(&err, WD_ERR_NOMEM, 0, "out of memory") : WD_OK;
        if (st == WD_OK)
            st = wd_link_resolve(m, no_imports, NULL, none, &err);
        if (st == WD_OK)
            st = wd_link_instantiate(s, m, none, &instance, &err);
        *inst = now_ms() - t0;
        wd_store_free(s);
    }
    wd_module_free(m);
    if (st != WD_OK)
        fprintf(stderr, "loadtime: %s:0x%zx: %s: %s\n", path, err.offset, wd_status_name(st),
                err.msg);
    return st == WD_OK;
}

/* --once: one decode, nothing printed but an error. */
static bool decode_once(const char *path, const uint8_t *bytes, size_t size,
                        const wd_decode_opts *opts)
{
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_module *m = NULL;
    wd_status st = wd_decode_module(&ctx, bytes, size, opts, &m, &err);
    wd_module_free(m);
    if (st != WD_OK)
        fprintf(stderr, "loadtime: %s:0x%zx: %s: %s\n", path, err.offset, wd_status_name(st),
                err.msg);
    return st == WD_OK;
}

static bool measure(const char *path, int reps, bool once, const wd_decode_opts *opts)
{
    size_t size = 0;
    uint8_t *bytes = read_file(path, &size);
    if (bytes == NULL) {
        fprintf(stderr, "loadtime: cannot read %s\n", path);
        return false;
    }
    if (once) {
        bool ok = decode_once(path, bytes, size, opts);
        free(bytes);
        return ok;
    }
    double dec[MAX_REPS], inst[MAX_REPS];
    size_t peak = 0, kept = 0;
    bool ok = true;
    for (int i = 0; i < reps && ok; i++)
        ok = load_once(path, bytes, size, opts, &dec[i], &inst[i]);
    if (ok)
        ok = measure_heap(bytes, size, opts, &peak, &kept);
    free(bytes);
    if (!ok)
        return false;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    double mb = (double)size / 1e6, d = median(dec, reps); /* sorts dec */
    char dec_text[64], inst_text[64] = "n/a (imports)";
    snprintf(dec_text, sizeof dec_text, "%.2f (%.2f-%.2f)", d, dec[0], dec[reps - 1]);
    if (inst[0] >= 0) {
        double i = median(inst, reps); /* sorts inst */
        snprintf(inst_text, sizeof inst_text, "%.3f (%.3f-%.3f)", i, inst[0], inst[reps - 1]);
    }
    char heap_text[64];
    snprintf(heap_text, sizeof heap_text, "%.1f / %.1f", (double)peak / 1e6, (double)kept / 1e6);
    printf("| %-24s | %7.2f | %s | %24s | %7.1f | %20s | %17s |\n", base, mb,
           opts->pvm ? "pvm  " : "plain", dec_text, mb / (d / 1e3), inst_text, heap_text);
    return true;
}

int main(int argc, char **argv)
{
    int reps = 61, input_reps = 11, status = 0, files = 0;
    bool once = false, header = false, inputs = false;
    json_set_alloc_funcs(json_malloc, json_free);
    wd_decode_opts opts;
    memset(&opts, 0, sizeof opts); /* the defaults, whatever fields the options gain */
    opts.costs = wd_tickmodel_builtin("pvm");
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--pvm") == 0) {
            opts.pvm = true;
        } else if (strcmp(argv[i], "--inputs") == 0) {
            inputs = true;
            if (header)
                printf("\n| %-24s | %7s | %7s | %8s | %-24s | %7s | %17s |\n"
                       "| %.24s | %.7s:| %.7s:| %.8s:| %.24s:| %.7s:| %.17s:|\n",
                       "inputs (in process)", "size MB", "inboxes", "messages", "parse, ms",
                       "MB/s", "heap MB peak/kept", DASHES, DASHES, DASHES, DASHES, DASHES,
                       DASHES, DASHES);
        } else if (strcmp(argv[i], "--header") == 0) {
            header = true;
            printf("| %-24s | %7s | %s | %-24s | %7s | %20s | %17s |\n", "load (in process)",
                   "size MB", "mode ", "decode, ms", "MB/s", "instantiate, ms",
                   "heap MB peak/kept");
            printf("| %.24s | %.7s:| %.5s | %.24s:| %.7s:| %.20s:| %.17s:|\n", DASHES, DASHES,
                   DASHES, DASHES, DASHES, DASHES, DASHES);
        } else if (strcmp(argv[i], "--once") == 0) {
            once = true;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = input_reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            opts.threads = (uint32_t)atoi(argv[++i]);
        } else if (strncmp(argv[i], "--", 2) == 0 || reps < 1 || reps > MAX_REPS ||
                   opts.costs == NULL) {
            fprintf(stderr,
                    "usage: loadtime [--reps N (1-%d)] [--threads N] [--header] [--once] [--pvm] "
                    "FILE... [--inputs FILE...]\n",
                    MAX_REPS);
            return 2;
        } else {
            files++;
            bool ok = inputs ? measure_inputs(argv[i], input_reps)
                             : measure(argv[i], reps, once, &opts);
            if (!ok)
                status = 1;
        }
    }
    return files == 0 ? 2 : status;
}
