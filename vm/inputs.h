/* inputs.h: the reference debugger's inputs file (reference/pvm.md section 3) and the
 * framing of one level's inbox (section 9).
 *
 * The file is a JSON array of inboxes; inbox i is fed at level i. Each inbox is an array of
 * messages, each one of:
 *   {"external": "<hex>"}    -> 01 ‖ payload
 *   {"serialized": "<hex>"}  -> the bytes verbatim (tag bytes included; not size-checked)
 *   {"payload": "<Michelson data>", "sender": "KT1..."?, "source": "tz1|tz2|tz3|tz4..."?,
 *    "destination": "sr1..."?}
 *                            -> 00 00 ‖ Micheline(payload) ‖ sender (20 bytes) ‖ source (tag
 *                               0..3 for tz1..tz4, then 20 bytes) ‖ destination (20 bytes)
 * Defaults: sender KT18amZmM5W7qDWVt2pH6uj7sCEd3kbzLrHT and source
 * tz1Ke2h7sDdakHJQh8WX4Z372du1KChsksyU (both 20 zero bytes), destination the rollup address
 * given by the caller (the reference's --rollup, default sr163Lv22CdE8QagCwf48PWDTquk6isQwv57
 * = 20 zero bytes).
 *
 * Unlike the reference debugger, which turns bad hex into an empty message, every problem is
 * an error naming the file, line and column and what was expected: JSON syntax, a value of
 * the wrong type, bad or odd-length hex, an unknown or mixed message shape, an address with a
 * bad checksum or of the wrong kind, an unparsable Michelson payload (pointing at the
 * offending character inside the string) and a message over 4,096 bytes. */
#ifndef WD_VM_INPUTS_H
#define WD_VM_INPUTS_H

#include "base/alloc.h"
#include "base/error.h"

/* The largest inbox message (constants_repr.ml: sc_rollup_message_size_limit), tags
 * included. */
#define WD_INPUT_MAX_MESSAGE 4096u

/* Bytes of one inbox message, tags included. Borrowed from the wd_inputs (or static). */
typedef struct wd_input_msg {
    const uint8_t *data;
    uint32_t size;
} wd_input_msg;

typedef struct wd_inbox {
    uint32_t count;
    wd_input_msg *msgs;
} wd_inbox;

typedef struct wd_inputs {
    wd_ctx *ctx;
    uint32_t count; /* inboxes */
    wd_inbox *inboxes;
    wd_arena arena; /* holds the inboxes and every message's bytes */
} wd_inputs;

/* Reads and parses the inputs file at `path`. `rollup` is the default destination of
 * transfers (NULL: 20 zero bytes). *out is cleared first, set only on success, and owned by
 * the caller (wd_inputs_free). Errors: WD_ERR_IO (cannot read: "path: cannot read: ..."),
 * WD_ERR_USAGE for bad content ("path:LINE:COL: inbox I, message J: what was expected"),
 * WD_ERR_NOMEM. err->offset is the byte offset in the file. */
WD_NODISCARD wd_status wd_inputs_load(wd_ctx *ctx, const char *path, const uint8_t rollup[20],
                                      wd_inputs **out, wd_error *err);

/* The same from text[0..size) already in memory; `name` is used in messages. */
WD_NODISCARD wd_status wd_inputs_parse(wd_ctx *ctx, const char *name, const char *text, size_t size,
                                       const uint8_t rollup[20], wd_inputs **out, wd_error *err);

void wd_inputs_free(wd_inputs *inputs);

/* The messages the PVM gets at a level for `inbox` (NULL: an empty inbox), counter = index:
 * 0 Start_of_level (00 01), 1 Info_per_level (00 03 ‖ timestamp 0 as 8 bytes big endian ‖
 * 32 zero bytes: the epoch and the zero block hash, as the reference debugger sends), then
 * the inbox's messages, last End_of_level (00 02). out->msgs is allocated (release it with
 * wd_inputs_frame_free); the bytes it points to are borrowed from the inbox or static.
 * Errors: WD_ERR_NOMEM, WD_ERR_USAGE when the inbox has too many messages to count. */
WD_NODISCARD wd_status wd_inputs_frame_level(wd_ctx *ctx, const wd_inbox *inbox, wd_inbox *out,
                                             wd_error *err);
void wd_inputs_frame_free(wd_ctx *ctx, wd_inbox *framed);

#endif
