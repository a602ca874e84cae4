/* prof_dwarf_test.c: stack snapshots (eval/snapshot.h) and source lines from DWARF
 * .debug_line (profiler/dwarf.h), on tests/unit/data/prof_dwarf.wasm (DWARF 4) and
 * prof_dwarf5.wasm (DWARF 5), built by clang -g from prof_dwarf.c: run(5) calls f(5), whose
 * loop calls g(0..4); g(4) traps at line 9. */
#include "decode/decode.h"
#include "eval/snapshot.h"
#include "link/link.h"
#include "profiler/dwarf.h"
#include "tests/unit/test.h"
#include "tests/unit/util.h"
#include "vm/tickmodel.h"

#include <stdlib.h>

typedef struct lines {
    wd_dwarf_lines *l;
    uint64_t code_start;
} lines;

static uint32_t leb_size(uint64_t v)
{
    uint32_t n = 1;
    for (; v >= 0x80; v >>= 7)
        n++;
    return n;
}

/* As cli/profhook.c does: addresses count from the code section's contents. */
static bool lookup(void *ud, const wd_module *m, uint32_t offset, const char **file,
                   uint32_t *line, uint32_t *column)
{
    lines *x = ud;
    (void)m;
    if (offset < x->code_start)
        return false;
    return wd_dwarf_lookup(x->l, offset - x->code_start, file, line, column);
}

typedef struct fixture {
    wd_test_vm vm;
    lines lines;
    wd_snapshot snap; /* taken at the last return with 3 frames: g(4)'s, unwinding the trap */
    bool taken;
} fixture;

static fixture *current;

static void on_ret(void *ud, uint64_t ticks, const struct wd_func *f)
{
    (void)ud, (void)ticks, (void)f;
    if (current->vm.t.frame_count == 3) {
        wd_error err;
        wd_error_clear(&err);
        wd_snapshot_free(&current->vm.ctx, &current->snap);
        current->taken =
            wd_snapshot_take(&current->vm.ctx, &current->vm.t, &current->snap, &err) == WD_OK;
    }
}

static bool setup(fixture *x, const char *file)
{
    memset(x, 0, sizeof *x);
    current = x;
    char path[512];
    snprintf(path, sizeof path, "tests/unit/data/%s", file);
    size_t size;
    uint8_t *bytes = wd_test_read_file(path, &size);
    bool ok = bytes != NULL && wd_test_vm_start(&x->vm, bytes, size, "flat-1", true, false);
    free(bytes);
    if (!ok)
        return false;
    const wd_custom *dl = wd_module_custom(x->vm.m, ".debug_line");
    const wd_custom *ls = wd_module_custom(x->vm.m, ".debug_line_str");
    const wd_custom *str = wd_module_custom(x->vm.m, ".debug_str");
    if (dl == NULL)
        return false;
    wd_dwarf_sections s = {dl->data, dl->size, ls ? ls->data : NULL, ls ? ls->size : 0,
                           str ? str->data : NULL, str ? str->size : 0};
    if (wd_dwarf_lines_parse(&x->vm.ctx, &s, &x->lines.l, &x->vm.err) != WD_OK)
        return false;
    const wd_funcdef *fd = &x->vm.m->funcs[x->vm.m->import_func_count];
    x->lines.code_start = fd->body_offset - leb_size(fd->body_size) -
                          leb_size(x->vm.m->func_count - x->vm.m->import_func_count);
    return true;
}

static void teardown(fixture *x)
{
    wd_snapshot_free(&x->vm.ctx, &x->snap);
    wd_dwarf_lines_free(x->lines.l);
    wd_test_vm_stop(&x->vm);
}

static wd_func *export(fixture *x, const char *name)
{
    return wd_test_vm_export(&x->vm, name);
}

static void trap_backtrace(const char *file)
{
    fixture x;
    CHECK(setup(&x, file));
    CHECK(wd_dwarf_row_count(x.lines.l) > 20);
    const char *src;
    uint32_t line, col;
    CHECK(wd_dwarf_lookup(x.lines.l, 0x4a, &src, &line, &col));
    CHECK(strcmp(src, "prof_dwarf.c") == 0 && line == 9 && col == 9);
    CHECK(!wd_dwarf_lookup(x.lines.l, 0x1, &src, &line, &col));    /* before every sequence */
    CHECK(!wd_dwarf_lookup(x.lines.l, 0x1000, &src, &line, &col)); /* after the last */

    wd_hooks hooks = {.ret = on_ret};
    x.vm.t.hooks = &hooks;
    wd_func *run = export(&x, "run");
    CHECK(run != NULL);
    wd_val arg = {.i32 = 5};
    CHECK_EQ(wd_eval_invoke(&x.vm.t, run, &arg, &x.vm.err), WD_TRAP);
    CHECK(x.taken);
    CHECK_EQ(x.snap.count, 3);
    const char *want_name[3] = {"g", "f", "run"};
    const uint32_t want_line[3] = {9, 17, 23};
    const wd_frame_kind want_kind[3] = {WD_FRAME_WASM, WD_FRAME_WASM, WD_FRAME_ENTRY};
    for (uint32_t i = 0; i < 3; i++) {
        wd_snapshot_entry e;
        wd_snapshot_entry_get(&x.snap, i, lookup, &x.lines, &e);
        CHECK(strcmp(e.func_name, want_name[i]) == 0);
        CHECK(e.kind == want_kind[i]);
        CHECK(e.file != NULL && strcmp(e.file, "prof_dwarf.c") == 0);
        CHECK_EQ(e.line, want_line[i]);
        CHECK(e.module_name != NULL);
    }
    /* the trap's offset is the top frame's */
    wd_snapshot_entry top;
    wd_snapshot_entry_get(&x.snap, 0, NULL, NULL, &top);
    CHECK_EQ(top.offset, x.vm.err.offset);
    CHECK(top.file == NULL);
    /* the execution went on undisturbed: a normal call works */
    arg.i32 = 3;
    CHECK_EQ(wd_eval_invoke(&x.vm.t, run, &arg, &x.vm.err), WD_OK);
    CHECK_EQ(wd_eval_results(&x.vm.t)[0].i32, (0 + 2 + 4) + 1);
    teardown(&x);
    CHECK_EQ(x.vm.ctx.live, 0);
}

TEST(prof_snapshot_trap_dwarf4)
{
    trap_backtrace("prof_dwarf.wasm");
}

TEST(prof_snapshot_trap_dwarf5)
{
    trap_backtrace("prof_dwarf5.wasm");
}

/* A snapshot of a thread paused at its tick limit, then resumed: same results. */
TEST(prof_snapshot_paused)
{
    fixture x;
    CHECK(setup(&x, "prof_dwarf.wasm"));
    wd_func *run = export(&x, "run");
    CHECK(run != NULL);
    wd_val arg = {.i32 = 3};
    x.vm.t.tick_limit = 25;
    CHECK_EQ(wd_eval_invoke(&x.vm.t, run, &arg, &x.vm.err), WD_OUT_OF_TICKS);
    wd_snapshot s;
    CHECK_EQ(wd_snapshot_take(&x.vm.ctx, &x.vm.t, &s, &x.vm.err), WD_OK);
    CHECK(s.count >= 2 && s.ticks == x.vm.t.ticks && s.ticks <= 25);
    wd_snapshot_entry e;
    wd_snapshot_entry_get(&s, s.count - 1, lookup, &x.lines, &e);
    CHECK(strcmp(e.func_name, "run") == 0 && e.kind == WD_FRAME_ENTRY && e.line == 23);
    wd_snapshot_entry_get(&s, s.count - 2, lookup, &x.lines, &e);
    CHECK(strcmp(e.func_name, "f") == 0 && e.line >= 13 && e.line <= 18);
    wd_snapshot_free(&x.vm.ctx, &s);
    x.vm.t.tick_limit = UINT64_MAX;
    CHECK_EQ(wd_eval_resume(&x.vm.t, &x.vm.err), WD_OK);
    CHECK_EQ(wd_eval_results(&x.vm.t)[0].i32, 7);
    /* an idle thread: an empty snapshot */
    CHECK_EQ(wd_snapshot_take(&x.vm.ctx, &x.vm.t, &s, &x.vm.err), WD_OK);
    CHECK_EQ(s.count, 0);
    wd_snapshot_free(&x.vm.ctx, &s);
    teardown(&x);
    CHECK_EQ(x.vm.ctx.live, 0);
}

/* Broken line tables: an error or a table, never a read out of bounds. */
TEST(prof_dwarf_damage)
{
    fixture x;
    CHECK(setup(&x, "prof_dwarf.wasm"));
    const wd_custom *dl = wd_module_custom(x.vm.m, ".debug_line");
    CHECK(dl != NULL);
    uint8_t *b = malloc(dl->size);
    CHECK(b != NULL);
    for (uint32_t k = 0; k < 2 * dl->size; k++) {
        memcpy(b, dl->data, dl->size);
        uint32_t len = k < dl->size ? k : dl->size;
        if (k >= dl->size)
            b[k - dl->size] ^= (uint8_t)(0x81 + k);
        uint8_t *exact = malloc(len + 1); /* so the sanitizers see any overread */
        CHECK(exact != NULL);
        memcpy(exact, b, len);
        wd_dwarf_sections s = {exact, len, NULL, 0, NULL, 0};
        wd_dwarf_lines *l = NULL;
        wd_error err;
        wd_error_clear(&err);
        if (wd_dwarf_lines_parse(&x.vm.ctx, &s, &l, &err) == WD_OK) {
            const char *file;
            uint32_t line, col;
            (void)wd_dwarf_lookup(l, 0x4a, &file, &line, &col);
            wd_dwarf_lines_free(l);
        } else {
            CHECK(err.status == WD_ERR_MALFORMED || err.status == WD_ERR_NOMEM);
        }
        free(exact);
    }
    free(b);
    teardown(&x);
    CHECK_EQ(x.vm.ctx.live, 0);
}

/* A DWARF 5 unit whose directory table (then file table) declares a million entries of no
 * bytes at all (no entry formats), or more entries than bytes left: a broken table, not a
 * million names (24 MB for the 40 bytes of a unit, per unit). */
TEST(prof_dwarf_entry_counts_bounded)
{
    static const uint8_t head[] = {
        5,    0,                                          /* version */
        4,    0,                                          /* address size, segment selector size */
        0,    0,  0,  0,                                  /* header length: set below */
        1,    1,  1,                                      /* min_inst, max ops, default_is_stmt */
        0xfb, 14, 13, 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1, /* line base and range, opcodes */
    };
    static const uint8_t tables[3][12] = {
        {0, 0xc0, 0x84, 0x3d, 0, 0},                  /* 1,000,000 dirs of no format */
        {1, 1, 0x08, 1, 'a', 0, 0, 0xc0, 0x84, 0x3d}, /* 1 dir; 1,000,000 files of none */
        {1, 1, 0x08, 0xc0, 0x84, 0x3d, 'a', 0},       /* 1,000,000 dirs: one byte left */
    };
    static const uint8_t sizes[3] = {6, 10, 8};
    for (int k = 0; k < 3; k++) {
        uint8_t unit[64];
        size_t n = 4;
        memcpy(unit + n, head, sizeof head);
        n += sizeof head;
        memcpy(unit + n, tables[k], sizes[k]);
        n += sizes[k];
        unit[0] = (uint8_t)(n - 4), unit[1] = unit[2] = unit[3] = 0;
        unit[8] = (uint8_t)(n - 12); /* from after the header length to the program: none */
        wd_meter meter;
        wd_ctx ctx;
        wd_ctx_metered(&ctx, &meter, (size_t)1 << 20);
        wd_dwarf_sections s = {unit, n, NULL, 0, NULL, 0};
        wd_dwarf_lines *l = NULL;
        wd_error err;
        wd_error_clear(&err);
        CHECK_EQ(wd_dwarf_lines_parse(&ctx, &s, &l, &err), WD_ERR_MALFORMED);
        CHECK_STR_CONTAINS(err.msg, "bad directory or file table");
        CHECK(meter.asked < 65536);
        CHECK_EQ(ctx.live, 0);
    }
}
