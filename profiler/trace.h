/* trace.h: recorded event streams (`wasmdbg profile --record FILE`, `wasmdbg report FILE`).
 *
 * A trace is the profiler's input, event by event, so that replaying it into a profiler
 * with the same configuration rebuilds every output exactly. Format (all integers are
 * unsigned LEB128, `z` ones zigzag-encoded signed, strings a length then bytes):
 *
 *   "WDTRACE\n" version
 *   meta:         count, then (key string, value string) pairs: kernel, tick_model, mode, ...
 *   event kinds:  count, then (code, name, field list) triples
 *   symbol kinds: count, then (code, name) pairs
 *   events:       code, payload size, payload ... until an `end` event
 *
 * Event payloads (by name): symbol (id, kind code, idx, name), call (z ticks delta, z ns
 * delta, symbol), ret (z ticks delta, z ns delta), phase (z ticks delta, z ns delta, begin,
 * name), step (z ticks delta, cost, operand, what), level (level), run (level, index, start,
 * effective, outcome name, reboot, reason, z ns), frame (function, func_idx, offset, file
 * ("" when unknown), line, more: a frame of the last run's backtrace, innermost first; more,
 * the frames left out after the last), stop (z ns: the clock at which the current run was
 * stopped, itself; wd_prof_stop), end (z ticks delta). Deltas are against
 * the previous event's ticks and ns. Readers map codes to events and symbol kinds by the
 * names in the header, never by their own enum order, and skip events they do not know (the
 * payload size says how far). Symbol ids are given in order 0, 1, 2, ... */
#ifndef WD_PROFILER_TRACE_H
#define WD_PROFILER_TRACE_H

#include "profiler/prof.h"

typedef struct wd_trace_writer wd_trace_writer;

typedef struct wd_trace_meta {
    const char *key, *value;
} wd_trace_meta;

/* Creates `path` and writes the header. `kind_order` (NULL: the natural order) lists the
 * event kind names in the order the header's table gives them, with codes assigned from
 * `code_base` on: for tests of readers. Errors: WD_ERR_IO naming the file, WD_ERR_NOMEM. */
WD_NODISCARD wd_status wd_trace_writer_open(wd_ctx *ctx, const char *path,
                                            const wd_trace_meta *meta, uint32_t meta_count,
                                            const char *const *kind_order, uint32_t code_base,
                                            wd_trace_writer **out, wd_error *err);
/* Flushes and closes; reports the first write error. NULL is a no-op. */
WD_NODISCARD wd_status wd_trace_writer_close(wd_trace_writer *w, wd_error *err);

/* Makes the profiler write every event it gets to `w` (borrowed; detach with NULL before
 * closing it). The symbols it knows already are written first. */
void wd_prof_record(wd_prof *p, wd_trace_writer *w);

/* The profiler's side (prof.c). */
void wd_trace_put_symbol(wd_trace_writer *w, uint32_t id, wd_prof_kind kind, uint32_t idx,
                         const char *name);
void wd_trace_put_call(wd_trace_writer *w, uint64_t ticks, int64_t ns, uint32_t sym);
void wd_trace_put_ret(wd_trace_writer *w, uint64_t ticks, int64_t ns);
void wd_trace_put_phase(wd_trace_writer *w, uint64_t ticks, int64_t ns, const char *name,
                        bool begin);
void wd_trace_put_step(wd_trace_writer *w, uint64_t ticks, uint64_t cost, const char *what,
                       uint64_t operand);
void wd_trace_put_level(wd_trace_writer *w, uint32_t level);
void wd_trace_put_run_info(wd_trace_writer *w, const wd_prof_run_info *info);
void wd_trace_put_frame(wd_trace_writer *w, const wd_prof_frame *f, uint32_t more);
void wd_trace_put_stop(wd_trace_writer *w, int64_t ns);
void wd_trace_put_end(wd_trace_writer *w, uint64_t ticks);

typedef struct wd_trace_reader wd_trace_reader;

/* Opens a trace and reads its header. Errors name the file and offset: WD_ERR_IO,
 * WD_ERR_MALFORMED ("not a wasmdbg trace", "unexpected end", ...), WD_ERR_NOMEM. */
WD_NODISCARD wd_status wd_trace_open(wd_ctx *ctx, const char *path, wd_trace_reader **out,
                                     wd_error *err);
/* A meta value, or NULL. */
const char *wd_trace_meta_get(const wd_trace_reader *r, const char *key);
/* Feeds every event to `p` (which must be fresh), ending with wd_prof_end. A trace cut
 * short (no `end` event) is replayed as far as it goes: *truncated is then true. */
WD_NODISCARD wd_status wd_trace_replay(wd_trace_reader *r, wd_prof *p, bool *truncated,
                                       wd_error *err);
void wd_trace_close(wd_trace_reader *r);

#endif
