/* output.h: the profile's files. Every output is a function of the events and these options
 * only, so a replayed trace writes the same bytes as the live run.
 *
 *   <base>.out              folded stacks (`a;b;c 123`, ticks): time-ordered, one line per
 *                           node in call order, runs one after the other (the reference's
 *                           flamechart), or with `collapsed` identical stacks merged and
 *                           sorted (flamegraph.pl, inferno, speedscope read both)
 *   <base>.svg              an interactive flamegraph (zoom, search, tooltips), self-contained
 *   <base>.trace.json       Chrome trace events, ticks on the time axis (Perfetto)
 *   <base>.speedscope.json  speedscope's file format: an evented profile per kernel run, in
 *                           ticks (unit "none")
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

typedef struct wd_prof_out {
    const char *dir;         /* where the files go */
    const char *base;        /* file name stem */
    bool collapsed;          /* <base>.out collapsed rather than time-ordered */
    bool with_time;          /* times in JSON, trace args and summaries */
    uint32_t max_depth;      /* 0: 100 */
    const char *kernel;      /* for titles and JSON */
    const char *tick_model;
    const char *pvm_version;
    const char *timestamp;
} wd_prof_out;

enum { WD_PROF_FILE_FOLDED, WD_PROF_FILE_SVG, WD_PROF_FILE_TRACE, WD_PROF_FILE_SPEEDSCOPE,
       WD_PROF_FILE_JSON, WD_PROF_FILE_COUNT };

/* The extension of each file (".out", ".svg", ...) and what it is, for summaries. */
extern const char *const wd_prof_file_ext[WD_PROF_FILE_COUNT];
extern const char *const wd_prof_file_what[WD_PROF_FILE_COUNT];

/* The files created ahead, while the kernel runs, by a thread of their own: on ext4 here
 * creating the 5 files took 0.43-0.53 ms of the end of a profile (more after many files were
 * deleted: ext4 skips inodes freed in the last 30 s). o->dir and o->base name them. NULL
 * when no thread can be made: wd_prof_write_files then creates them. */
typedef struct wd_prof_files wd_prof_files;
wd_prof_files *wd_prof_files_open(const wd_prof_out *o);
/* Files created ahead that will not be written: removed. NULL is ignored. */
void wd_prof_files_discard(wd_prof_files *pre);

/* Writes every file into o->dir: into `pre` when given (from wd_prof_files_open with the same
 * dir and base; consumed, even on failure), else created now. Errors: WD_ERR_IO naming the
 * file, WD_ERR_NOMEM. Once the profile is over and when it is big, the event files are
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
/* svg.c */
WD_NODISCARD wd_status wd_prof_write_svg(wd_prof *p, FILE *f, const wd_prof_out *o,
                                         wd_error *err);

/* The machine profile, JSON: kernel, tick model, mode, totals, phases, per level and kernel
 * run the phases, outcome and per-function figures, per-function figures over all runs
 * (name, raw name, kind, self and total ticks, calls), hot steps and the file names. */
WD_NODISCARD wd_status wd_prof_write_json(wd_prof *p, FILE *f, const wd_prof_out *o,
                                          wd_error *err);

#endif
