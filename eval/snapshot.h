/* snapshot.h: a copy of a thread's call stack (DESIGN.md "Stack snapshots"), taken at any
 * pause, in a hook, or from a host function, without disturbing execution, and its decoding
 * into what a backtrace shows: function name, module name, code offset and, through a
 * caller-supplied lookup (DWARF .debug_line lives in profiler/), source file and line. */
#ifndef WD_EVAL_SNAPSHOT_H
#define WD_EVAL_SNAPSHOT_H

#include "eval/eval.h"

typedef enum wd_frame_kind {
    WD_FRAME_ENTRY, /* the function the invocation started with */
    WD_FRAME_WASM,  /* a wasm function called by another */
    WD_FRAME_HOST,  /* a host function running (or owing the ticks it charged) */
} wd_frame_kind;

typedef struct wd_snap_frame {
    const wd_func *func;  /* borrowed: valid while its instance lives (NULL: unknown host) */
    uint32_t func_idx;    /* in its module's function space (host: UINT32_MAX) */
    uint32_t offset;      /* byte offset in the module: the instruction the top frame runs
                             next, or the call a caller waits on (host: 0) */
    wd_frame_kind kind;
} wd_snap_frame;

typedef struct wd_snapshot {
    wd_snap_frame *frames; /* innermost first */
    uint32_t count;
    uint64_t ticks;        /* the thread's counter when taken */
} wd_snapshot;

/* Copies t's call stack into *out (owned: wd_snapshot_free). An idle thread gives an empty
 * snapshot. Errors: WD_ERR_NOMEM. */
WD_NODISCARD wd_status wd_snapshot_take(wd_ctx *ctx, const wd_thread *t, wd_snapshot *out,
                                        wd_error *err);
void wd_snapshot_free(wd_ctx *ctx, wd_snapshot *s);

/* Source positions: true with *file (borrowed) and *line set when `offset` (a byte offset in
 * module m) has one. */
typedef bool (*wd_srcloc_fn)(void *ud, const wd_module *m, uint32_t offset, const char **file,
                             uint32_t *line, uint32_t *column);

typedef struct wd_snapshot_entry {
    wd_frame_kind kind;
    uint32_t func_idx;
    const char *func_name;   /* name section entry or func[idx]; host: module.name */
    const char *module_name; /* the name section's module name, "" when none */
    uint32_t offset;
    const char *file;        /* NULL when unknown */
    uint32_t line, column;
    char buf[48];            /* holds func_name when it is made up */
} wd_snapshot_entry;

/* Decodes frame i (0 = innermost); `loc` may be NULL. */
void wd_snapshot_entry_get(const wd_snapshot *s, uint32_t i, wd_srcloc_fn loc, void *loc_ud,
                           wd_snapshot_entry *out);

#endif
