/* ops.c: tables generated from ops.def. */
#include "decode/code.h"

#define X     WD_T_X
#define I32   WD_T_I32
#define I64   WD_T_I64
#define F32   WD_T_F32
#define F64   WD_T_F64
#define V128  WD_T_V128
#define CTRL  WD_KIND_CTRL
#define UN    WD_KIND_UN
#define BIN   WD_KIND_BIN
#define LOAD  WD_KIND_LOAD
#define STORE WD_KIND_STORE
#define MISC  WD_KIND_MISC

const char *const wd_op_names[WD_OP_COUNT] = {
#define OP(name, prefix, code, text, kind, t1, t2) text,
#define IOP(name, text)                            text,
#include "decode/ops.def"
#undef OP
#undef IOP
};

const wd_opinfo wd_op_info[WD_OP_COUNT] = {
#define OP(name, prefix, code, text, kind, t1, t2) {kind, t1, t2, prefix, code},
#define IOP(name, text)                            {WD_KIND_INTERNAL, X, X, 0, 0},
#include "decode/ops.def"
#undef OP
#undef IOP
};

/* The opcode plus one at the byte of each single-byte instruction, and at 256 + the
 * sub-opcode of each 0xFC one; 0 where there is none. */
enum { FC_CODES = 32 };
static const uint16_t op_of_code[256 + FC_CODES] = {
#define OP(name, prefix, code, text, kind, t1, t2)                                                 \
    [((prefix) != 0) * 256 + (code)] = WD_OP_##name + 1,
#define IOP(name, text)
#include "decode/ops.def"
#undef OP
#undef IOP
};

uint32_t wd_op_decode(uint32_t prefix, uint32_t code)
{
    uint32_t i = prefix == 0 ? code : code + 256;
    if ((prefix != 0 && prefix != 0xFC) || code >= (prefix == 0 ? 256u : (uint32_t)FC_CODES) ||
        op_of_code[i] == 0)
        return WD_OP_COUNT;
    return op_of_code[i] - 1u;
}
