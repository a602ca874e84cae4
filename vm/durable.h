/* durable.h: the PVM's durable storage, a tree in which a path can hold a value, children,
 * or both. Subtrees and values are shared copy-on-write, so store_copy is O(depth) and an
 * EVM-sized state (hundreds of thousands of keys) copies, moves and deletes cheaply.
 *
 * Keys are byte strings `/step/step...` (reference/pvm.md section 5): every step non-empty,
 * made of A-Z a-z 0-9 . - _, at most 240 bytes in all. Functions return 0 or a positive
 * result on success and the PVM's negative error codes (WD_DURABLE_E*) on failure.
 * Readonly paths are not enforced here (the PVM itself writes them): host functions do. */
#ifndef WD_VM_DURABLE_H
#define WD_VM_DURABLE_H

#include "base/alloc.h"

enum {
    WD_DURABLE_EKEY_TOO_LARGE = -1,
    WD_DURABLE_EINVALID_KEY = -2,
    WD_DURABLE_ENOT_A_VALUE = -3,
    WD_DURABLE_EINVALID_ACCESS = -4,
    WD_DURABLE_EVALUE_SIZE = -5,
    WD_DURABLE_EGENERIC = -8, /* also: out of memory */
    WD_DURABLE_ENOT_A_NODE = -10,
    WD_DURABLE_ESUBKEY_INDEX = -12,
    WD_DURABLE_EVALUE_EXISTS = -13,
};

#define WD_DURABLE_MAX_KEY   240u
#define WD_DURABLE_MAX_VALUE 0x7FFFFFFFu

typedef struct wd_durable wd_durable;

wd_durable *wd_durable_new(wd_ctx *ctx);
void wd_durable_free(wd_durable *d);
/* A copy sharing all data with `d` (O(1)); changes to either do not affect the other. */
wd_durable *wd_durable_clone(wd_durable *d);

/* 0 if `key` is a valid key; else WD_DURABLE_EKEY_TOO_LARGE or WD_DURABLE_EINVALID_KEY.
 * With allow_root, "/" alone is accepted too (the REPL lists the root). */
int wd_durable_check_key(const char *key, size_t len, bool allow_root);

/* 0 nothing, 1 value only, 2 subtrees only, 3 both. */
int wd_durable_has(const wd_durable *d, const char *key, size_t len);
/* Children count, the value slot counting as one. */
int64_t wd_durable_list_size(const wd_durable *d, const char *key, size_t len);
/* Name of child `index` in byte order with the value slot as "@"-named entry returned as an
 * empty name; *name borrowed until the next change. WD_DURABLE_ESUBKEY_INDEX if too large. */
int wd_durable_nth_key(wd_durable *d, const char *key, size_t len, uint64_t index,
                       const char **name, size_t *name_len);
/* Removes the value and the subtree (value_only: only the value). Absent key: 0. */
int wd_durable_delete(wd_durable *d, const char *key, size_t len, bool value_only);
/* Copies (or moves) the subtree at `from` to `to`, replacing what was there. Missing
 * source: WD_DURABLE_ENOT_A_NODE. */
int wd_durable_copy(wd_durable *d, const char *from, size_t from_len, const char *to,
                    size_t to_len, bool move);
/* Value size in bytes, or WD_DURABLE_ENOT_A_VALUE. */
int64_t wd_durable_value_size(const wd_durable *d, const char *key, size_t len);
/* Copies min(max, size-offset) bytes at `offset`; offset >= size: EINVALID_ACCESS. */
int64_t wd_durable_read(const wd_durable *d, const char *key, size_t len, uint64_t offset,
                        uint8_t *dst, size_t max);
/* Writes (creating the value if absent); offset > size: EINVALID_ACCESS; past 2^31-1:
 * EVALUE_SIZE. */
int wd_durable_write(wd_durable *d, const char *key, size_t len, uint64_t offset,
                     const uint8_t *src, size_t n);
/* Sets the whole value (creating or replacing it). */
int wd_durable_set(wd_durable *d, const char *key, size_t len, const uint8_t *src, size_t n);
/* Creates a zero-filled value; one exists already: EVALUE_EXISTS. A large value takes
 * memory for the bytes written to it only (durable.c: sparse values). */
int wd_durable_create(wd_durable *d, const char *key, size_t len, int64_t size);

/* A value, read in pieces: wd_durable_get, wd_durable_walk. */
typedef struct wd_durable_blob wd_durable_blob;
/* The value at `key` (borrowed until the next change) and its size, or NULL. */
const wd_durable_blob *wd_durable_get(const wd_durable *d, const char *key, size_t len,
                                      size_t *size);
/* The bytes of `v` from `offset` (below its size) in one piece, without copying: *n of them,
 * to the end of a page or of the value. Bytes never written are zeros. */
const uint8_t *wd_durable_piece(const wd_durable_blob *v, size_t offset, size_t *n);

/* The value's bytes in one piece (borrowed until the next change), or NULL: no value, or
 * out of memory for a large value created sparse, whose bytes are then copied into one
 * piece (a kernel's, to decode it). */
const uint8_t *wd_durable_value(const wd_durable *d, const char *key, size_t len, size_t *size);
/* The value as it is now, kept whatever later changes the key (values are copy-on-write),
 * until wd_durable_release, before wd_durable_free: its bytes in one piece in *data, *size;
 * NULL when the key has no value (or out of memory, as wd_durable_value). */
typedef struct wd_durable_kept wd_durable_kept;
const wd_durable_kept *wd_durable_keep(wd_durable *d, const char *key, size_t len,
                                       const uint8_t **data, size_t *size);
void wd_durable_release(wd_durable *d, const wd_durable_kept *k);

/* Visits the subtree at `key` ("/" for all) depth-first in byte order: `fn` gets each
 * node's path (NUL-terminated) and its value (NULL when it has none) and its size. Stops
 * when fn returns non-zero, returning that. */
typedef int (*wd_durable_visit_fn)(void *ud, const char *path, const wd_durable_blob *value,
                                   size_t size);
int wd_durable_walk(wd_durable *d, const char *key, size_t len, wd_durable_visit_fn fn,
                    void *ud);

#endif
