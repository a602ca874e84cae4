/* wasmdbg.h: for kernel authors. The smart_rollup_core host functions (as the PVM of
 * 2.0.0-r2 and later has them) and wasmdbg's zero-cost profile sections.
 *
 * Sections: WASMDBG_SECTION_START("name") ... WASMDBG_SECTION_END("name") make a node
 * "name" in every profile wasmdbg writes. They are plain write_debug calls of the
 * reference debugger's convention (`__wasm_debugger__::start_section(<data>)`), which a
 * real PVM charges exactly as it would charge any write_debug (no extra ticks), so a
 * kernel keeps them in production builds at the cost of the call itself, or compiles
 * them out with -DWASMDBG_NO_SECTIONS. */
#ifndef WASMDBG_H
#define WASMDBG_H

#include <stdint.h>

#define WASMDBG_IMPORT(name) __attribute__((import_module("smart_rollup_core"), import_name(name)))

WASMDBG_IMPORT("read_input") int32_t read_input(void *info, void *dst, uint32_t max);
WASMDBG_IMPORT("write_output") int32_t write_output(const void *src, uint32_t size);
WASMDBG_IMPORT("write_debug") void write_debug(const void *src, uint32_t size);
WASMDBG_IMPORT("store_has") int32_t store_has(const char *key, uint32_t key_size);
WASMDBG_IMPORT("store_exists") int32_t store_exists(const char *key, uint32_t key_size);
WASMDBG_IMPORT("store_read")
int32_t store_read(const char *key, uint32_t key_size, uint32_t offset, void *dst, uint32_t max);
WASMDBG_IMPORT("store_write")
int32_t store_write(const char *key, uint32_t key_size, uint32_t offset, const void *src,
                    uint32_t size);
WASMDBG_IMPORT("store_delete") int32_t store_delete(const char *key, uint32_t key_size);
WASMDBG_IMPORT("store_value_size") int32_t store_value_size(const char *key, uint32_t key_size);
WASMDBG_IMPORT("store_list_size") int64_t store_list_size(const char *key, uint32_t key_size);
WASMDBG_IMPORT("store_copy")
int32_t store_copy(const char *from, uint32_t from_size, const char *to, uint32_t to_size);
WASMDBG_IMPORT("store_move")
int32_t store_move(const char *from, uint32_t from_size, const char *to, uint32_t to_size);

/* Input info written by read_input: the level and the message's counter in it. */
typedef struct wasmdbg_input_info {
    uint32_t level, counter;
} wasmdbg_input_info;

#define WASMDBG_STR_(s) #s
#define WASMDBG_SECTION_MSG_(kind, name) "__wasm_debugger__::" kind "_section(" name ")"

#ifdef WASMDBG_NO_SECTIONS
#define WASMDBG_SECTION_START(name) ((void)0)
#define WASMDBG_SECTION_END(name)   ((void)0)
#else
/* `name` must be a string literal. */
#define WASMDBG_SECTION_START(name)                                                                \
    write_debug(WASMDBG_SECTION_MSG_("start", name), sizeof WASMDBG_SECTION_MSG_("start", name) - 1)
#define WASMDBG_SECTION_END(name)                                                                  \
    write_debug(WASMDBG_SECTION_MSG_("end", name), sizeof WASMDBG_SECTION_MSG_("end", name) - 1)
#endif

#endif
