/* dwarf.h: source lines from DWARF `.debug_line` (versions 2 to 5), as `clang -g` puts in a
 * wasm module's custom sections. Addresses in a wasm module's line table are offsets from
 * the start of the code section's contents; wd_dwarf_lookup takes such an address. */
#ifndef WD_PROFILER_DWARF_H
#define WD_PROFILER_DWARF_H

#include "base/alloc.h"
#include "base/error.h"

typedef struct wd_dwarf_lines wd_dwarf_lines;

typedef struct wd_dwarf_sections {
    const uint8_t *line;     /* .debug_line (required) */
    size_t line_size;
    const uint8_t *line_str; /* .debug_line_str (DWARF 5 file names), or NULL */
    size_t line_str_size;
    const uint8_t *str;      /* .debug_str, or NULL */
    size_t str_size;
} wd_dwarf_sections;

/* Reads every line-number program of the sections (borrowed; what is kept is copied).
 * Errors: WD_ERR_MALFORMED with the offset in .debug_line, WD_ERR_NOMEM. */
WD_NODISCARD wd_status wd_dwarf_lines_parse(wd_ctx *ctx, const wd_dwarf_sections *s,
                                            wd_dwarf_lines **out, wd_error *err);
void wd_dwarf_lines_free(wd_dwarf_lines *l);

/* The source position of `address`: false when no sequence covers it. *file stays valid
 * until the table is freed. */
bool wd_dwarf_lookup(const wd_dwarf_lines *l, uint64_t address, const char **file,
                     uint32_t *line, uint32_t *column);

/* Rows in the table (for tests). */
uint32_t wd_dwarf_row_count(const wd_dwarf_lines *l);

#endif
