/* trace.c: recorded traces as `wasmdbg report` reads them (profiler/trace.c): the input is
 * written to a file, opened (wd_trace_open), replayed into a profiler configured from its
 * metadata (wd_trace_replay), and every output of the rebuilt profile is written to
 * /dev/null (profiler/output.c, svg.c): folded stacks both ways, Chrome trace events,
 * speedscope, the SVG flamegraph and the JSON profile. */
#include "profiler/trace.h"

#include "profiler/output.h"
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>

static FILE *devnull;

/* A metadata number, or `dflt` when it is not one. */
static uint32_t meta_u32(const wd_trace_reader *r, const char *key, uint32_t dflt)
{
    const char *s = wd_trace_meta_get(r, key);
    if (s == NULL || *s < '0' || *s > '9')
        return dflt;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    return *end == '\0' && v <= UINT32_MAX ? (uint32_t)v : dflt;
}

static wd_prof_mode meta_mode(const wd_trace_reader *r)
{
    const char *s = wd_trace_meta_get(r, "mode");
    return s == NULL                ? WD_PROF_AUTO
           : strcmp(s, "full") == 0 ? WD_PROF_FULL
           : strcmp(s, "cct") == 0  ? WD_PROF_CCT
                                    : WD_PROF_AUTO;
}

static void write_outputs(wd_prof *p, const wd_trace_reader *r)
{
    wd_prof_out o = {.dir = wd_fuzz_dir(),
                     .base = "trace",
                     .with_time = true,
                     .max_depth = meta_u32(r, "max_depth", 100),
                     .kernel = wd_trace_meta_get(r, "kernel"),
                     .tick_model = wd_trace_meta_get(r, "tick_model"),
                     .timestamp = wd_trace_meta_get(r, "timestamp")};
    wd_error err;
    wd_error_clear(&err);
    wd_status st = wd_prof_write_folded(p, devnull, false, o.max_depth, &err);
    if (st == WD_OK)
        st = wd_prof_write_folded(p, devnull, true, o.max_depth, &err);
    if (st == WD_OK)
        st = wd_prof_write_chrome(p, devnull, &o, &err);
    if (st == WD_OK)
        st = wd_prof_write_speedscope(p, devnull, &o, &err);
    if (st == WD_OK)
        st = wd_prof_write_svg(p, devnull, &o, &err);
    if (st == WD_OK)
        st = wd_prof_write_json(p, devnull, &o, &err);
    if (st != WD_OK && st != WD_ERR_NOMEM)
        wd_fuzz_fail("writing the outputs: %s", err.msg);
}

void wd_fuzz_setup(void)
{
    devnull = fopen("/dev/null", "w");
    if (devnull == NULL)
        wd_fuzz_fail("cannot open /dev/null");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = wd_fuzz_file("trace", data, size);
    wd_ctx ctx;
    wd_ctx_init(&ctx);
    wd_error err;
    wd_error_clear(&err);
    wd_trace_reader *r;
    if (wd_trace_open(&ctx, path, &r, &err) != WD_OK) {
        wd_fuzz_check_freed(&ctx, "trace open");
        return 0;
    }
    wd_prof_config cfg = {.mode = meta_mode(r), .full_limit = meta_u32(r, "full_limit", 0)};
    wd_prof *p;
    if (wd_prof_new(&ctx, &cfg, &p, &err) == WD_OK) {
        bool truncated;
        if (wd_trace_replay(r, p, &truncated, &err) == WD_OK)
            write_outputs(p, r);
        wd_prof_free(p);
    }
    wd_trace_close(r);
    wd_fuzz_check_freed(&ctx, "trace");
    return 0;
}
