/* output.h: the profile's files. Every output is a function of the events and these options
 * only, so a replayed trace writes the same bytes as the live run.
 *
 *   <base>.out              folded stacks (`a;b;c 123`, ticks): time-ordered, one line per
 *                           node in call order, runs one after the other (the reference's
 *                           flamechart), or with `collapsed` identical stacks merged and
 *                           sorted (flamegraph.pl, inferno, speedscope read both)
 *   <base>.svg              an interactive flamegraph (zoom, search, tooltips), self-contained
 *   <base>.trace.json       Chrome trace events, ticks on the time axis (Perfetto), 1 tick
 *                           = 1 ns (displayTimeUnit "ns" at the head; otherData.time_unit)
 *   <base>.speedscope.json  speedscope's file format: one evented profile, WD_PROF_ALL_RUNS,
 *                           in ticks (unit "none"): every kernel run one after the other, each
 *                           in a frame `level L run I`; frames numbered as first used, their
 *                           list and the profile's endValue after the events
 *   <base>.json             the machine profile (see wd_prof_json)
 *
 * Stacks deeper than max_depth (folded, SVG) are cut there: the deeper nodes' ticks count
 * for the frame at max_depth, so every total is kept. Time-ordered outputs place nodes where
 * they ran in full mode; in calling-context mode (merged calls) each node's calls are laid out
 * as one block, children first, in first-call order. */
#ifndef WD_PROFILER_OUTPUT_H
#define WD_PROFILER_OUTPUT_H

#include <stdio.h>

#include "profiler/prof.h"

/* The name of speedscope's profile: all the kernel runs together. */
#define WD_PROF_ALL_RUNS "all runs"

typedef struct wd_prof_out {
    const char *dir;         /* where the files go */
    const char *base;        /* file name stem: BASE-2, BASE-3, ... when BASE's are taken */
    bool fixed_base;         /* BASE only: its files taken, nothing is written (no suffix) */
    bool collapsed;          /* <base>.out collapsed rather than time-ordered */
    bool with_time;          /* times in JSON, trace args and summaries */
    uint32_t max_depth;      /* 0: 100 */
    const char *kernel;      /* for titles and JSON */
    const char *tick_model;
    const char *pvm_version;
    const char *timestamp;
    uint64_t timestamp_ns;   /* the same instant, ns since 1970 (JSON "timestamp_ns"); 0: none */
} wd_prof_out;

enum { WD_PROF_FILE_FOLDED, WD_PROF_FILE_SVG, WD_PROF_FILE_TRACE, WD_PROF_FILE_SPEEDSCOPE,
       WD_PROF_FILE_JSON, WD_PROF_FILE_COUNT };

/* The extension of each file (".out", ".svg", ...) and what it is, for summaries. */
extern const char *const wd_prof_file_ext[WD_PROF_FILE_COUNT];
extern const char *const wd_prof_file_what[WD_PROF_FILE_COUNT];

/* The files, possibly created ahead while the kernel runs. wd_prof_files_new names them
 * (o->dir, o->base; NULL on OOM); wd_prof_files_create creates them, with system calls only
 * (no allocation, no profile), so that any thread may do it: `profile` has the profiler
 * feed's consumer thread do it as it starts (profiler/feed.h). On ext4 here creating the 5
 * files took 0.43-0.53 ms of the end of a tx-kernel-no-verif profile, more after many files
 * were deleted (ext4 without a journal skips inodes freed in the last minutes). A profile
 * too small for that thread (counter) creates them at the end: a thread of their own cost
 * it more than that. */
typedef struct wd_prof_files wd_prof_files;
wd_prof_files *wd_prof_files_new(const wd_prof_out *o);
void wd_prof_files_create(void *files);
/* Creation is exclusive (O_EXCL): files that exist are never written, so profiles started
 * in the same millisecond, whose timestamped names are alike, do not overwrite each other.
 * The first file reserves a base: BASE, else the first free of BASE-2 .. BASE-9999 (only
 * BASE with o->fixed_base); a profile's files always share it. wd_prof_files_ready creates
 * them unless they were, and returns the creation's status (WD_ERR_IO naming the file);
 * wd_prof_files_base is the base they got (o->base until then). */
WD_NODISCARD wd_status wd_prof_files_ready(wd_prof_files *files, wd_error *err);
const char *wd_prof_files_base(const wd_prof_files *files);
/* Files that will not be written: those created are removed. NULL is ignored. Not while
 * wd_prof_files_create may run. */
void wd_prof_files_discard(wd_prof_files *pre);

/* Writing ahead, beside the profiler's consumer thread (profiler/feed.h). While the kernel
 * runs, `stream` (the feed's on_idle job) writes the time-ordered files (folded stacks,
 * Chrome trace, speedscope) run by run on the consumer, a slice of STREAM_SLICE nodes at a
 * time, each kernel run once it is over (its report came) and the clock's unit known: what
 * the end has left to write of them is the last runs. It stops for good, the files emptied
 * to be written whole at the end, when the tree becomes a calling-context tree (its layout
 * is not time order), for collapsed folded stacks, and on failure. Before those slices it
 * merges the runs for the SVG, MERGE_SLICE nodes at a time, following the run being applied
 * up to its open calls; the SVG's writer finishes the merge (given up, and done there whole,
 * for a calling-context tree or on failure). At the end `profile` has
 * the consumer complete the tree, compute the figures and then run write_events (feed's
 * `after`): the stream's event files' runs left and tails, or without a stream the event
 * files from the finished profile, allocating from a context of its own. Meanwhile the
 * calling thread's write_ahead finishes the stream's folded stacks and writes the SVG (with
 * a stream) or writes the folded stacks (without: not collapsed ones) from the tree alone
 * (after wd_prof_end_tree), allocating from contexts of its own; then the rest. On
 * tx-kernel-no-verif it no longer waits 0.25-0.65 ms for the last events and the figures,
 * nor starts a writer thread. events_setup gives the profile and the outputs' options (o is
 * copied, its strings borrowed): before the first event for a stream. events_taken tells
 * wd_prof_write_files that another thread runs write_events and that join(arg) waits for
 * it. wd_prof_write_files keeps what was written ahead, its outcome reported in file order
 * as if written there. */
void wd_prof_files_events_setup(wd_prof_files *pre, wd_prof *p, const wd_prof_out *o);
bool wd_prof_files_stream(void *files);
void wd_prof_files_write_ahead(wd_prof_files *pre);
void wd_prof_files_write_events(void *files);
void wd_prof_files_events_taken(wd_prof_files *pre, void (*join)(void *), void *arg);

/* Writes every file into o->dir: into `pre` when given (from wd_prof_files_new with the same
 * dir and base; consumed, even on failure), created now unless it was; the JSON profile lists
 * the names the files got (wd_prof_files_base). Errors: WD_ERR_IO
 * naming the file, WD_ERR_NOMEM. Once the profile is over and when it is big, the event files are
 * written on a thread of its own while the calling thread writes the others (the profile is
 * only read, p->ctx only used by the calling thread). */
WD_NODISCARD wd_status wd_prof_write_files(wd_prof *p, const wd_prof_out *o, wd_prof_files *pre,
                                           wd_error *err);

WD_NODISCARD wd_status wd_prof_write_folded(wd_prof *p, FILE *f, bool collapsed,
                                            uint32_t max_depth, wd_error *err);
WD_NODISCARD wd_status wd_prof_write_chrome(wd_prof *p, FILE *f, const wd_prof_out *o,
                                            wd_error *err);
WD_NODISCARD wd_status wd_prof_write_speedscope(wd_prof *p, FILE *f, const wd_prof_out *o,
                                                wd_error *err);
/* svg.c. prof_write_svg_in allocates from ctx only and reads only the tree's shape, self
 * ticks, calls and symbols (prof_merge_runs), so it may run as soon as the tree is complete
 * (wd_prof_end_tree), beside the figures (wd_prof_files_write_ahead). */
WD_NODISCARD wd_status wd_prof_write_svg(wd_prof *p, FILE *f, const wd_prof_out *o,
                                         wd_error *err);
WD_NODISCARD wd_status prof_write_svg_in(wd_prof *p, wd_ctx *ctx, FILE *f, const wd_prof_out *o,
                                         wd_error *err);
/* The same from the runs merged already (prof_merge_runs with the display groups as keys and
 * prof_depth, or the stream's merge of them as the kernel ran). */
struct prof_tree;
WD_NODISCARD wd_status prof_write_svg_merged(wd_prof *p, wd_ctx *ctx, FILE *f,
                                             const wd_prof_out *o, const struct prof_tree *merged,
                                             wd_error *err);
/* Where folded stacks and the SVG are cut: --max-depth (max_depth, 0 for the default 100);
 * deeper frames count for the one there. */
static inline uint32_t prof_depth(uint32_t max_depth)
{
    return max_depth != 0 ? max_depth : 100;
}

/* The machine profile, JSON: kernel, tick model, mode, totals, phases, per level and kernel
 * run the phases, outcome and per-function figures, per-function figures over all runs
 * (name, raw name, kind, self and total ticks, calls), hot steps and the file names. */
WD_NODISCARD wd_status wd_prof_write_json(wd_prof *p, FILE *f, const wd_prof_out *o,
                                          wd_error *err);

#endif
