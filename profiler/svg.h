/* svg.h: the differential flamegraph of `wasmdbg diff --svg`. svg.c also writes the
 * profile's own flamegraph (wd_prof_write_svg, declared in output.h); both go through one
 * writer, so they look and behave the same: click to zoom, Reset Zoom or Escape, Search
 * (Ctrl-F, regular expressions), tooltips, no network.
 *
 * A differential flamegraph has the shape of the NEW profile (a frame's width: its total
 * ticks in NEW) and each frame coloured by the change of its self ticks from OLD to NEW, as
 * Brendan Gregg's differential flame graphs do: red when they grew, blue when they shrank,
 * the deeper the larger the relative change; light grey when unchanged; orange (outlined)
 * for a frame (a call path) that OLD does not have. Frames only OLD has are not drawn: the
 * heading counts them and their ticks. Each frame's <g> has the class `grow`, `shrink`,
 * `same` or `new`, and its tooltip gives the total and self ticks before and after, the
 * delta and the percent. Both profiles come as folded stacks (`a;b;c 123` lines, what
 * `wasmdbg profile` writes in BASE.out, time-ordered or --collapsed). */
#ifndef WD_PROFILER_SVG_H
#define WD_PROFILER_SVG_H

#include "base/alloc.h"
#include "base/error.h"

#include <stdio.h>

typedef struct wd_svg_diff wd_svg_diff;

/* The two sides of a comparison. */
typedef enum wd_svg_side { WD_SVG_OLD, WD_SVG_NEW } wd_svg_side;

typedef struct wd_svg_diff_opts {
    const char *old_name; /* how the title names the profiles (file names) */
    const char *new_name;
    const char *tick_model; /* NULL: not shown */
} wd_svg_diff_opts;

/* An empty comparison. Errors: WD_ERR_NOMEM. */
WD_NODISCARD wd_status wd_svg_diff_new(wd_ctx *ctx, wd_svg_diff **out, wd_error *err);
void wd_svg_diff_free(wd_svg_diff *d);

/* Adds folded stacks to one side (borrowed; `size` bytes, no terminator needed): lines
 * `frame;frame;... TICKS`, the count after the last space; equal stacks add up, blank
 * lines and a trailing \r are ignored. Frames keep the order in which they are first added:
 * add NEW first so the graph keeps NEW's order. Errors: WD_ERR_MALFORMED ("line N: ...",
 * err->offset the line's byte offset), WD_ERR_NOMEM; what was added before stays. */
WD_NODISCARD wd_status wd_svg_diff_add(wd_svg_diff *d, wd_svg_side side, const char *text,
                                       size_t size, wd_error *err);

/* The ticks added to one side so far. */
uint64_t wd_svg_diff_ticks(const wd_svg_diff *d, wd_svg_side side);

/* Writes the differential flamegraph to f. Errors: WD_ERR_NOMEM, WD_ERR_IO. */
WD_NODISCARD wd_status wd_svg_diff_write(wd_svg_diff *d, FILE *f, const wd_svg_diff_opts *o,
                                         wd_error *err);

#endif
