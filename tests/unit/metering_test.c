/* metering_test.c: stops at the tick limit give the same ticks from fused and unfused code
 * (decode/translate.c, eval/interp.c; DESIGN.md's invariant): a dynamic cost that does not
 * fit stops in front of its instruction, that instruction's own cost not charged. */
#include "tests/unit/test.h"
#include "tests/unit/util.h"

/* (memory 1 1)
 * (func (export "fill") (memory.fill (i32.const 1) (i32.const 170) (i32.const 65534)))
 * (func (export "copy") (memory.copy (i32.const 0) (i32.const 8) (i32.const 1000))) */
static const uint8_t bulk_consts[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00, 0x03,
    0x03, 0x02, 0x00, 0x00, 0x05, 0x04, 0x01, 0x01, 0x01, 0x01, 0x07, 0x0f, 0x02, 0x04, 0x66,
    0x69, 0x6c, 0x6c, 0x00, 0x00, 0x04, 0x63, 0x6f, 0x70, 0x79, 0x00, 0x01, 0x0a, 0x1e, 0x02,
    0x0e, 0x00, 0x41, 0x01, 0x41, 0xaa, 0x01, 0x41, 0xfe, 0xff, 0x03, 0xfc, 0x0b, 0x00, 0x0b,
    0x0d, 0x00, 0x41, 0x00, 0x41, 0x08, 0x41, 0xe8, 0x07, 0xfc, 0x0a, 0x00, 0x00, 0x0b};

/* The tick at which `name` stops with a budget of `limit` ticks (UINT64_MAX: it did not). */
static uint64_t stop_tick(const char *name, bool no_fuse, uint64_t limit)
{
    wd_test_vm v;
    uint64_t ticks = UINT64_MAX;
    if (wd_test_vm_start(&v, bulk_consts, sizeof bulk_consts, "pvm", false, no_fuse)) {
        wd_func *f = wd_test_vm_export(&v, name);
        v.t.tick_limit = limit;
        wd_val none[1] = {{0}};
        if (f != NULL && wd_eval_invoke(&v.t, f, none, &v.err) == WD_OUT_OF_TICKS)
            ticks = v.t.ticks;
        wd_eval_abort(&v.t);
    }
    wd_test_vm_stop(&v);
    return ticks;
}

TEST(metering_bulk_stop_fused_as_unfused)
{
    static const char *const names[] = {"fill", "copy"};
    for (size_t n = 0; n < WD_ARRAY_COUNT(names); n++) {
        /* Below 26 the limit falls among the constants, which fused code charges at once
         * (the unfused code one by one); from 26 on both stop in front of the bulk
         * instruction, after the entry (8) and the 3 constants (6 each), its own 6 not
         * charged. */
        for (uint64_t limit = 26; limit < 200; limit += 3) {
            CHECK_EQ(stop_tick(names[n], false, limit), 26);
            CHECK_EQ(stop_tick(names[n], true, limit), 26);
        }
    }
}
