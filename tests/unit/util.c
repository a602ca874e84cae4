#include "tests/unit/util.h"

#include "vm/tickmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *wd_test_shared(const char *sub, const char *file, char *buf, size_t size)
{
    const char *dir = getenv("WD_SHARED_DIR");
    snprintf(buf, size, "%s/%s/%s", dir != NULL ? dir : "../shared", sub, file);
    return buf;
}

uint8_t *wd_test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            buf = NULL;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    *size = n;
    return buf;
}

bool wd_test_vm_start(wd_test_vm *v, const uint8_t *bytes, size_t size, const char *model, bool pvm,
                      bool no_fuse)
{
    memset(v, 0, sizeof *v);
    wd_ctx_init(&v->ctx);
    wd_error_clear(&v->err);
    if (wd_tickmodel_get(model, &v->costs, &v->err) != WD_OK)
        return false;
    wd_decode_opts opts = {.costs = &v->costs, .pvm = pvm, .no_fuse = no_fuse};
    if (wd_decode_module(&v->ctx, bytes, size, &opts, &v->m, &v->err) != WD_OK)
        return false;
    v->store = wd_store_new(&v->ctx);
    return v->store != NULL &&
           wd_link_instantiate(v->store, v->m, NULL, &v->inst, &v->err) == WD_OK &&
           wd_thread_init(&v->t, &v->ctx, 4096, 100, &v->costs, &v->err) == WD_OK;
}

void wd_test_vm_stop(wd_test_vm *v)
{
    wd_thread_fini(&v->t);
    wd_store_free(v->store);
    wd_module_free(v->m);
}

bool wd_test_vm_start_pair(wd_test_vm *fused, wd_test_vm *plain, const uint8_t *bytes,
                           size_t size)
{
    bool ok = wd_test_vm_start(fused, bytes, size, "pvm", false, false);
    ok = wd_test_vm_start(plain, bytes, size, "pvm", false, true) && ok;
    if (!ok) {
        wd_test_vm_stop(fused);
        wd_test_vm_stop(plain);
    }
    return ok;
}

wd_func *wd_test_vm_export(wd_test_vm *v, const char *name)
{
    wd_extern e;
    if (v->inst == NULL || !wd_instance_export(v->inst, name, &e) || e.kind != WD_EXTERN_FUNC)
        return NULL;
    return e.u.func;
}

bool wd_test_same_files(const char *a, const char *b, const char *base,
                        const char *const *exts, int count)
{
    bool same = true;
    for (int i = 0; i < count; i++) {
        char pa[700], pb[700];
        snprintf(pa, sizeof pa, "%s/%s%s", a, base, exts[i]);
        snprintf(pb, sizeof pb, "%s/%s%s", b, base, exts[i]);
        size_t na, nb;
        uint8_t *x = wd_test_read_file(pa, &na), *y = wd_test_read_file(pb, &nb);
        same = same && x != NULL && y != NULL && na == nb && memcmp(x, y, na) == 0;
        free(x);
        free(y);
        unlink(pa);
        unlink(pb);
    }
    return same;
}

size_t wd_test_put_leb(uint8_t *p, uint64_t v, bool is_signed)
{
    size_t n = 0;
    for (;;) {
        uint8_t b = v & 0x7F;
        v = is_signed ? (uint64_t)((int64_t)v >> 7) : v >> 7;
        bool done = is_signed ? (v == 0 && !(b & 0x40)) || (v == UINT64_MAX && (b & 0x40)) : v == 0;
        p[n++] = (uint8_t)(b | (done ? 0 : 0x80));
        if (done)
            return n;
    }
}

size_t wd_test_put_section(uint8_t *p, uint8_t id, const uint8_t *body, size_t len)
{
    p[0] = id;
    size_t n = 1 + wd_test_put_leb(p + 1, len, false);
    memcpy(p + n, body, len);
    return n + len;
}

uint32_t wd_test_rnd(uint64_t *state, uint32_t n)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return (uint32_t)(x % n);
}
