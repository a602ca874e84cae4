/* util.h: small helpers shared by unit tests. */
#ifndef WD_TESTS_UNIT_UTIL_H
#define WD_TESTS_UNIT_UTIL_H

#include "decode/decode.h"
#include "eval/eval.h"
#include "link/link.h"

#include <stddef.h>
#include <stdint.h>

/* ../shared/<sub>/<file> (or $WD_SHARED_DIR/<sub>/<file>) into buf. */
const char *wd_test_shared(const char *sub, const char *file, char *buf, size_t size);
/* The whole file, malloc'ed (NULL if unreadable). */
uint8_t *wd_test_read_file(const char *path, size_t *size);
/* Whether a/BASE.EXT and b/BASE.EXT have the same bytes for each of the `count` exts (all
 * compared, then removed). */
bool wd_test_same_files(const char *a, const char *b, const char *base,
                        const char *const *exts, int count);
/* Module bytes: v in LEB128 (signed or not) at p; a section (id, size, `len` bytes of body) at
 * p. Each returns the bytes written. */
size_t wd_test_put_leb(uint8_t *p, uint64_t v, bool is_signed);
size_t wd_test_put_section(uint8_t *p, uint8_t id, const uint8_t *body, size_t len);
/* A xorshift step of *state (not 0): a number below n. */
uint32_t wd_test_rnd(uint64_t *state, uint32_t n);

/* A module decoded, instantiated (no imports) and a thread to run it. */
typedef struct wd_test_vm {
    wd_ctx ctx;
    wd_costs costs;
    wd_module *m;
    wd_store *store;
    wd_instance *inst;
    wd_thread t;
    wd_error err;
} wd_test_vm;

/* Decodes `bytes` with tick model `model` (pvm: PVM mode; no_fuse), instantiates it and
 * makes the thread (4096 slots, 100 frames); false on any failure (err says which; stop
 * it all the same). */
bool wd_test_vm_start(wd_test_vm *v, const uint8_t *bytes, size_t size, const char *model, bool pvm,
                      bool no_fuse);
void wd_test_vm_stop(wd_test_vm *v);
/* The module started twice under the pvm tick model, as translated (fused) and as --no-fuse
 * translates it (plain); false, both stopped, when either fails. */
bool wd_test_vm_start_pair(wd_test_vm *fused, wd_test_vm *plain, const uint8_t *bytes,
                           size_t size);
/* The exported function `name`, or NULL. */
wd_func *wd_test_vm_export(wd_test_vm *v, const char *name);

#endif
