/* host.h: the `smart_rollup_core` host functions (reference/pvm.md section 4): their
 * signatures per PVM version, semantics, limits, error codes and tick costs. */
#ifndef WD_VM_HOST_H
#define WD_VM_HOST_H

#include "eval/eval.h"
#include "link/link.h"
#include "vm/durable.h"

/* PVM versions: 2.0.0 .. 2.0.0-r6. */
enum { WD_PVM_V0, WD_PVM_V1, WD_PVM_V2, WD_PVM_V3, WD_PVM_V4, WD_PVM_V5, WD_PVM_V6,
       WD_PVM_VERSION_COUNT };

/* Host error codes (pvm.md 4.2) beyond the storage ones of durable.h. */
enum {
    WD_HOST_EMEMORY = -6,
    WD_HOST_ETOO_LARGE = -7,
    WD_HOST_EGENERIC = -8,
    WD_HOST_EREADONLY = -9,
    WD_HOST_EFULL_OUTBOX = -11,
    WD_HOST_ENDS_DISABLED = -16,
};

#define WD_MAX_MESSAGE   4096u /* input and output messages, reveal hashes */
#define WD_MAX_STORE_IO  2048u /* store_read / store_write per call */
#define WD_OUTBOX_LIMIT  100u  /* messages per level */

typedef struct wd_msg {
    uint8_t *bytes;
    uint32_t size;
    uint32_t level, counter;
} wd_msg;

/* Answers a reveal request (the raw `reveal` payload: tag 00 + 33-byte hash, 01
 * metadata, 02 DAL page, 03 DAL parameters, ...): writes at most `max` bytes of the
 * answer to buf and its full size to *size. A non-OK status makes the kernel_run fail
 * (the PVM is stuck), with err saying why. */
typedef wd_status (*wd_reveal_fn)(void *ud, const uint8_t *req, size_t req_size, uint8_t *buf,
                                  size_t max, size_t *size, wd_error *err);

typedef struct wd_host_env {
    wd_ctx *ctx;
    int version;         /* WD_PVM_V* */
    const wd_costs *costs;
    wd_durable *durable; /* borrowed */

    /* The input buffer of the current level; messages borrowed. */
    const wd_msg *inputs;
    uint32_t input_count, input_next;

    /* The outbox of the current level (owned; wd_host_env_fini frees it). */
    uint32_t level;
    wd_msg outbox[WD_OUTBOX_LIMIT];
    uint32_t outbox_count;

    wd_reveal_fn reveal;
    void *reveal_ud;

    /* write_debug output; NULL to drop it. */
    void (*debug)(void *ud, const uint8_t *bytes, size_t size);
    void *debug_ud;

    bool in_start; /* the start function runs: host functions may not touch memory */

    struct wd_func *fns[40]; /* registered host functions, by host.c's table order */
} wd_host_env;

/* Creates the host functions of env->version in `s` and resolves `imp` against them:
 * the module must be exactly "smart_rollup_core", the name must exist in that version and
 * the type must be equal. A wd_resolver for wd_link_resolve, with `ud` the env. */
wd_status wd_host_resolve(void *ud, const wd_import *imp, wd_extern *out, wd_error *err);

/* Registers env's host functions in store `s` (once, before resolving). */
WD_NODISCARD wd_status wd_host_register(wd_host_env *env, wd_store *s, wd_error *err);

/* Frees the outbox messages. */
void wd_host_env_fini(wd_host_env *env);

/* The version string of v ("2.0.0-r6") / the version of a string, or -1. */
const char *wd_pvm_version_name(int v);
int wd_pvm_version_parse(const char *s);

#endif
