#!/usr/bin/env python3
"""gen_corpus.py OUTDIR [--wat2wasm PATH]: writes the corpus of small PVM kernels for the
differential test of wasmdbg's ticks against the Octez tick model (tests/octez/run.sh).

For every kernel NAME it writes, into OUTDIR:
  NAME.wat           the text (every kernel exports memory "mem" and kernel_run: [] -> [])
  NAME.wasm          `wat2wasm --debug-names NAME.wat` (plus appended custom sections
                     where a kernel asks for them)
  NAME.inputs.json   its inboxes (the Octez debugger's inputs format)
and one manifest, OUTDIR/corpus.json: a list of {name, group, wasm, inputs, args,
ticks_per_snapshot, note, error} in corpus order. `args` are extra options given to both
the model and wasmdbg (`@DIR@` stands for OUTDIR); `ticks_per_snapshot` is null (the
debugger's period), a number, or "edge-fit" / "edge-late" (the harness sets it from the
model's count of the first run: one tick more than that run needs, or exactly what it
needs, which is one tick too late). `error` is set when wat2wasm refused the kernel.

Kernels are grouped by name prefix: num-, mem-, var-, ctl-, garbage-return- (the
"return garbage" quirk, RULES.md 6.4 item 5), call-, trap-, host-, reboot-, upgrade-,
struct-, tickcap-. Each one is deterministic and small; the generator only uses
constructs the model covers (no floats, tables only through call_indirect and active elem
segments, no memory.init/data.drop/elem.drop, no start function).
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'difftest'))
from wasmbin import uleb as leb  # noqa: E402 (one LEB128 writer for the tests' modules)

# smart_rollup_core host functions: (params, results)
HOST = {
    'read_input': ('i32 i32 i32', 'i32'),
    'write_output': ('i32 i32', 'i32'),
    'write_debug': ('i32 i32', ''),
    'store_has': ('i32 i32', 'i32'),
    'store_list_size': ('i32 i32', 'i64'),
    'store_get_nth_key': ('i32 i32 i64 i32 i32', 'i32'),
    'store_delete': ('i32 i32', 'i32'),
    'store_delete_value': ('i32 i32', 'i32'),
    'store_copy': ('i32 i32 i32 i32', 'i32'),
    'store_move': ('i32 i32 i32 i32', 'i32'),
    'store_value_size': ('i32 i32', 'i32'),
    'store_read': ('i32 i32 i32 i32 i32', 'i32'),
    'store_write': ('i32 i32 i32 i32 i32', 'i32'),
    'store_create': ('i32 i32 i32', 'i32'),
    'store_exists': ('i32 i32', 'i32'),
    '__internal_store_get_hash': ('i32 i32 i32 i32', 'i32'),
    'reveal_preimage': ('i32 i32 i32 i32', 'i32'),
    'reveal_metadata': ('i32 i32', 'i32'),
    'reveal': ('i32 i32 i32 i32', 'i32'),
    'nds_registry_resize': ('i64', 'i32'),
    'nds_store_exists': ('i64 i32 i32', 'i32'),
}

ROLLUP = 'sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg'

# Inboxes
IN_TWO = [[{'external': '68656c6c6f'}, {'external': '00ff'}], [{'external': ''}]]
IN_ONE = [[]]
IN_THREE = [[{'external': '01'}], [], [{'external': '0203'}, {'external': '04'}]]
IN_MIXED = [
    [{'external': '48656c6c6f'}, {'payload': '0x0102'}, {'payload': '42'},
     {'payload': '"str"'}],
    [],
    [{'serialized': '0100ff'}, {'external': ''}, {'payload': 'Unit'},
     {'payload': 'Pair 1 (Pair "a" 0x00)'}],
]


def wat_string(b):
    if isinstance(b, str):
        b = b.encode()
    return '"' + ''.join('\\%02x' % c for c in b) + '"'


class Kernel:
    """One kernel module being written. kernel_run's body is `run`; helper functions go
    in `funcs`. Templates in any text: {K:text} is "(i32.const ADDR) (i32.const LEN)" of a
    string placed in memory by a data segment, {A:text} its address only, {L:text} its
    length; {K:@name} etc. refer to a blob added with blob()."""

    def __init__(self, name, group, inputs=None, args=(), tps=None, note=''):
        self.name = name
        self.group = group
        self.inputs = IN_TWO if inputs is None else inputs
        self.args = list(args)
        self.tps = tps
        self.note = note
        self.imports = []
        self.types = []
        self.globals = []
        self.tables = []
        self.elems = []
        self.datas = []
        self.funcs = []
        self.exports = []
        self.mem = '(memory (export "mem") 1)'
        self.run = ''
        self.run_locals = ''
        self.strs = {}
        self.blobs = {}
        self.next_addr = 0x4000
        self.emitting = False
        self.autoflush = True
        self.custom = []        # (name, bytes) appended after conversion
        self.debug_names = True
        self.raw = None         # a complete module text instead of the builder's

    def imp(self, *names):
        for n in names:
            if n not in self.imports:
                self.imports.append(n)
        return self

    def place(self, key, b):
        addr = self.next_addr
        self.next_addr += (len(b) + 16) & ~15
        self.datas.append('(data (i32.const %d) %s)' % (addr, wat_string(b)))
        self.strs[key] = (addr, len(b))
        return addr, len(b)

    def blob(self, name, b):
        return self.place('@' + name, b)

    def emit(self):
        """Adds $e (i32), $e64 (i64) and $flush (write_output of what was emitted)."""
        self.emitting = True
        self.imp('write_output')
        return self

    def subst(self, text):
        def rep(m):
            kind, s = m.group(1), m.group(2)
            if s not in self.strs:
                if s.startswith('@'):
                    raise KeyError('blob %s not defined' % s)
                self.place(s, s.encode())
            a, n = self.strs[s]
            return {'K': '(i32.const %d) (i32.const %d)' % (a, n),
                    'A': '(i32.const %d)' % a, 'L': '(i32.const %d)' % n}[kind]
        return re.sub(r'\{([KAL]):([^}]*)\}', rep, text)

    def text(self):
        if self.raw is not None:
            return self.raw
        parts = ['(module']
        body_parts = []
        for t in self.types:
            body_parts.append(t)
        for n in self.imports:
            p, r = HOST[n]
            sig = ('(param %s)' % p if p else '') + (' (result %s)' % r if r else '')
            body_parts.append('(import "smart_rollup_core" "%s" (func $%s %s))' % (n, n, sig))
        body_parts.append(self.mem)
        body_parts += self.tables
        if self.emitting:
            body_parts.append('(global $p (mut i32) (i32.const 1024))')
        body_parts += self.globals
        body_parts += self.exports
        if self.emitting:
            body_parts.append(
                '(func $e (param i32)\n'
                '  (i32.store (global.get $p) (local.get 0))\n'
                '  (global.set $p (i32.add (global.get $p) (i32.const 4))))')
            body_parts.append(
                '(func $e64 (param i64)\n'
                '  (i64.store (global.get $p) (local.get 0))\n'
                '  (global.set $p (i32.add (global.get $p) (i32.const 8))))')
            body_parts.append(
                '(func $flush\n'
                '  (drop (call $write_output (i32.const 1024)\n'
                '                            (i32.sub (global.get $p) (i32.const 1024))))\n'
                '  (global.set $p (i32.const 1024)))')
        funcs = [self.subst(f) for f in self.funcs]
        run = self.subst(self.run)
        body_parts += funcs
        flush = '\n  call $flush' if self.emitting and self.autoflush else ''
        body_parts.append('(func $kernel_run (export "kernel_run") %s\n%s%s)'
                          % (self.run_locals, run, flush))
        body_parts += self.elems
        body_parts += self.datas
        parts += ['  ' + p.replace('\n', '\n  ') for p in body_parts]
        return '\n'.join(parts) + ')\n'


CORPUS = []


def K(name, group, **kw):
    k = Kernel(name, group, **kw)
    CORPUS.append(k)
    return k


# ---------------------------------------------------------------------------------------
# num-: numeric instructions, results written to the outbox

PAIRS32 = [(7, 3), (-7, 3), (0x80000000, 31), (-1, 33), (12345678, -5), (0x7fffffff, 2)]
PAIRS64 = [(7, 3), (-7, 3), (0x8000000000000000, 63), (-1, 65), (1234567890123, -5),
           (0x7fffffffffffffff, 2)]
ARITH = ['add', 'sub', 'mul', 'div_s', 'div_u', 'rem_s', 'rem_u', 'and', 'or', 'xor',
         'shl', 'shr_s', 'shr_u', 'rotl', 'rotr']
CMP = ['eq', 'ne', 'lt_s', 'lt_u', 'gt_s', 'gt_u', 'le_s', 'le_u', 'ge_s', 'ge_u']


def num_kernels():
    k = K('num-i32-arith', 'num').emit()
    lines = []
    for op in ARITH:
        for a, b in PAIRS32:
            lines.append('(call $e (i32.%s (i32.const %d) (i32.const %d)))' % (op, a, b))
    # rem_s of INT_MIN by -1 is 0, not a trap
    lines.append('(call $e (i32.rem_s (i32.const 0x80000000) (i32.const -1)))')
    k.run = '\n'.join(lines)

    k = K('num-i64-arith', 'num').emit()
    lines = []
    for op in ARITH:
        for a, b in PAIRS64:
            lines.append('(call $e64 (i64.%s (i64.const %d) (i64.const %d)))' % (op, a, b))
    lines.append('(call $e64 (i64.rem_s (i64.const 0x8000000000000000) (i64.const -1)))')
    k.run = '\n'.join(lines)

    k = K('num-cmp', 'num').emit()
    lines = []
    for op in CMP:
        for a, b in PAIRS32 + [(5, 5)]:
            lines.append('(call $e (i32.%s (i32.const %d) (i32.const %d)))' % (op, a, b))
        for a, b in PAIRS64 + [(5, 5)]:
            lines.append('(call $e (i64.%s (i64.const %d) (i64.const %d)))' % (op, a, b))
    for v in (0, 1, -1):
        lines.append('(call $e (i32.eqz (i32.const %d)))' % v)
        lines.append('(call $e (i64.eqz (i64.const %d)))' % v)
    k.run = '\n'.join(lines)

    k = K('num-unary-convert', 'num').emit()
    lines = []
    for v in (0, 1, 0x80, 0x8000, 0xf0f00f0f, -1, 0x00010000):
        for op in ('clz', 'ctz', 'popcnt', 'extend8_s', 'extend16_s'):
            lines.append('(call $e (i32.%s (i32.const %d)))' % (op, v))
        lines.append('(call $e64 (i64.extend_i32_s (i32.const %d)))' % v)
        lines.append('(call $e64 (i64.extend_i32_u (i32.const %d)))' % v)
    for v in (0, 1, 0x80, 0x8000, 0x80000000, -1, 0x123456789abcdef0, 0x100000000):
        for op in ('clz', 'ctz', 'popcnt', 'extend8_s', 'extend16_s', 'extend32_s'):
            lines.append('(call $e64 (i64.%s (i64.const %d)))' % (op, v))
        lines.append('(call $e (i32.wrap_i64 (i64.const %d)))' % v)
    k.run = '\n'.join(lines)

    k = K('num-stack-ops', 'num', note='drop, nop, select (plain and typed), deep '
          'expression stacks').emit()
    k.run_locals = '(local $i i32) (local $j i64)'
    k.run = '''
nop nop nop
i32.const 1 i32.const 2 i32.const 3 i32.const 4 i32.const 5 i32.const 6 i32.const 7
i32.const 8 i32.const 9 i32.const 10
i32.add i32.mul i32.sub i32.add i32.xor i32.add i32.or i32.add i32.add
call $e
i32.const 11 drop
i64.const 12 drop
(call $e (select (i32.const 10) (i32.const 20) (i32.const 0)))
(call $e (select (i32.const 10) (i32.const 20) (i32.const 1)))
(call $e64 (select (i64.const 30) (i64.const 40) (i32.const 0)))
(call $e64 (select (i64.const 30) (i64.const 40) (i32.const -1)))
(call $e (select (result i32) (i32.const 50) (i32.const 60) (i32.const 0)))
(call $e64 (select (result i64) (i64.const 70) (i64.const 80) (i32.const 7)))
(local.set $i (i32.const 3))
(local.set $j (i64.const -9))
(call $e (local.tee $i (i32.mul (local.get $i) (i32.const 5))))
(call $e64 (local.tee $j (i64.mul (local.get $j) (local.get $j))))
nop'''


# ---------------------------------------------------------------------------------------
# mem-: loads, stores, memory.size/grow, memory.fill/copy

def mem_kernels():
    k = K('mem-loads', 'mem').emit()
    k.datas.append('(data (i32.const 16) "\\01\\82\\03\\84\\85\\86\\87\\f8\\09\\fa\\0b\\fc\\0d\\fe\\0f\\ff")')
    lines = []
    for off in (0, 1, 3, 7):
        for op in ('i32.load', 'i32.load8_s', 'i32.load8_u', 'i32.load16_s', 'i32.load16_u'):
            lines.append('(call $e (%s offset=%d (i32.const 16)))' % (op, off))
        for op in ('i64.load', 'i64.load8_s', 'i64.load8_u', 'i64.load16_s', 'i64.load16_u',
                   'i64.load32_s', 'i64.load32_u'):
            lines.append('(call $e64 (%s offset=%d (i32.const 16)))' % (op, off))
    lines.append('(call $e (i32.load align=1 (i32.const 17)))')
    lines.append('(call $e (i32.load (i32.const 65532)))')      # the last word
    lines.append('(call $e64 (i64.load (i32.const 65528)))')
    k.run = '\n'.join(lines)

    k = K('mem-stores', 'mem').emit()
    lines = []
    for i, (op, val) in enumerate([('i32.store', '(i32.const 0x11223344)'),
                                   ('i32.store8', '(i32.const 0x1ff)'),
                                   ('i32.store16', '(i32.const 0x12345)'),
                                   ('i64.store', '(i64.const 0x1122334455667788)'),
                                   ('i64.store8', '(i64.const -1)'),
                                   ('i64.store16', '(i64.const -2)'),
                                   ('i64.store32', '(i64.const 0x123456789)')]):
        lines.append('(%s offset=%d (i32.const 200) %s)' % (op, i * 3, val))
    for i in range(8):
        lines.append('(call $e64 (i64.load (i32.const %d)))' % (200 + i * 4))
    lines.append('(i32.store8 (i32.const 65535) (i32.const 0xab))')
    lines.append('(call $e (i32.load8_u (i32.const 65535)))')
    k.run = '\n'.join(lines)

    k = K('mem-grow', 'mem', note='memory.size/grow within and beyond the maximum').emit()
    k.mem = '(memory (export "mem") 1 4)'
    k.run = '''
(call $e (memory.size))
(call $e (memory.grow (i32.const 1)))
(call $e (memory.size))
(call $e (memory.grow (i32.const 0)))
(call $e (memory.grow (i32.const 10)))
(call $e (memory.grow (i32.const 2)))
(call $e (memory.grow (i32.const 1)))
(call $e (memory.size))
(i32.store (i32.const 0x3fffc) (i32.const 77))
(call $e (i32.load (i32.const 0x3fffc)))'''

    k = K('mem-grow-nomax', 'mem', note='memory 0 pages, no maximum').emit()
    k.mem = '(memory (export "mem") 0)'
    k.run = '''
(drop (memory.grow (i32.const 2)))
(call $e (memory.size))
(call $e (memory.grow (i32.const 3)))
(call $e (memory.size))
(i32.store (i32.const 0x4fffc) (i32.const 5))
(call $e (i32.load (i32.const 0x4fffc)))'''

    k = K('mem-fill', 'mem', note='memory.fill with n = 0 (also at the end of memory) '
          'and n > 0').emit()
    k.run = '''
(memory.fill (i32.const 100) (i32.const 0xaa) (i32.const 0))
(memory.fill (i32.const 65536) (i32.const 0xaa) (i32.const 0))
(memory.fill (i32.const 100) (i32.const 0x1bb) (i32.const 1))
(memory.fill (i32.const 101) (i32.const 0xcc) (i32.const 37))
(memory.fill (i32.const 65530) (i32.const 0xdd) (i32.const 6))
(call $e (i32.load (i32.const 99)))
(call $e (i32.load (i32.const 136)))
(call $e (i32.load (i32.const 138)))
(call $e (i32.load (i32.const 65532)))'''

    k = K('mem-copy', 'mem', note='memory.copy with n = 0 and n > 0, overlapping both '
          'ways').emit()
    k.datas.append('(data (i32.const 300) "0123456789abcdefghijklmnopqrstuvwxyz")')
    k.run = '''
(memory.copy (i32.const 400) (i32.const 300) (i32.const 0))
(memory.copy (i32.const 65536) (i32.const 65536) (i32.const 0))
(memory.copy (i32.const 400) (i32.const 300) (i32.const 36))
(memory.copy (i32.const 402) (i32.const 400) (i32.const 20))
(memory.copy (i32.const 300) (i32.const 305) (i32.const 20))
(memory.copy (i32.const 65535) (i32.const 300) (i32.const 1))
(call $e (i32.load (i32.const 300)))
(call $e (i32.load (i32.const 316)))
(call $e (i32.load (i32.const 400)))
(call $e (i32.load (i32.const 404)))
(call $e (i32.load (i32.const 420)))
(call $e (i32.load8_u (i32.const 65535)))'''


# ---------------------------------------------------------------------------------------
# var-: locals and globals

def var_kernels():
    k = K('var-locals', 'var', note='local.get/set/tee over several local groups of both '
          'types').emit()
    k.funcs.append('''(func $f (param $a i32) (param $b i64) (result i64)
  (local $x i32) (local $y i32) (local $z i32)
  (local $p i64) (local $q i64)
  (local $r i32)
  (local.set $x (i32.add (local.get $a) (i32.const 1)))
  (local.set $y (i32.mul (local.get $x) (local.get $x)))
  (local.set $z (local.tee $r (i32.sub (local.get $y) (local.get $a))))
  (local.set $p (i64.extend_i32_u (local.get $z)))
  (local.set $q (i64.add (local.get $p) (local.get $b)))
  (i64.add (local.get $q) (i64.extend_i32_s (local.get $r))))''')
    k.run_locals = '(local $i i32)'
    k.run = '''
(local.set $i (i32.const 0))
(loop $l
  (call $e64 (call $f (local.get $i) (i64.const -3)))
  (local.set $i (i32.add (local.get $i) (i32.const 1)))
  (br_if $l (i32.lt_u (local.get $i) (i32.const 5))))'''

    k = K('var-globals', 'var', note='mutable and immutable globals of both types with '
          'init expressions, global.get/set, an exported global').emit()
    k.globals += ['(global $g0 (mut i32) (i32.const 0))',
                  '(global $g1 (mut i64) (i64.const -1))',
                  '(global $c0 i32 (i32.const 42))',
                  '(global $c1 i64 (i64.const 0x7fffffffffffffff))',
                  '(global $g2 (mut i32) (i32.const -100))',
                  '(global $c2 (export "answer") i32 (i32.const 7))']
    k.run = '''
(global.set $g0 (i32.add (global.get $g0) (global.get $c0)))
(global.set $g1 (i64.add (global.get $g1) (global.get $c1)))
(global.set $g2 (i32.mul (global.get $g2) (global.get $c2)))
(call $e (global.get $g0))
(call $e64 (global.get $g1))
(call $e (global.get $g2))
(call $e (global.get $c2))'''


# ---------------------------------------------------------------------------------------
# ctl-: blocks, loops, ifs, branches, returns (without the return-garbage quirk)

def loop_call(fn, values, e='$e'):
    return '\n'.join('(call %s (call %s (i32.const %d)))' % (e, fn, v) for v in values)


def ctl_kernels():
    k = K('ctl-block-values', 'ctl', note='nested blocks with results, values below them '
          '(H), multi-value blocks').emit()
    k.funcs.append('''(func $f (param $x i32) (result i32)
  i32.const 100
  block (result i32)
    i32.const 1
    i32.const 2
    block (result i32)
      local.get $x
      i32.const 3
      i32.add
    end
    i32.add
    i32.add
  end
  i32.add
  block (result i32 i64)
    i32.const 5
    i32.const 6
    drop
    i64.const 7
  end
  i32.wrap_i64
  i32.add
  i32.add)''')
    k.funcs.append('''(func $g (result i32)
  block (result i32)
    block (result i32)
      block (result i32)
        block (result i32)
          i32.const 1
        end
      end
    end
  end)''')
    k.run = loop_call('$f', [0, 1, 9]) + '\n(call $e (call $g))'

    k = K('ctl-block-params', 'ctl', note='blocks with params and results through type '
          'indices, nested, with values below').emit()
    k.types += ['(type $bin (func (param i32 i32) (result i32)))',
                '(type $dup (func (param i32) (result i32 i32)))',
                '(type $eat (func (param i32)))']
    k.funcs.append('''(func $f (param $x i32) (result i32)
  i32.const 7
  local.get $x
  i32.const 5
  block (type $bin)
    i32.mul
  end
  block (type $dup)
    i32.const 1
    i32.add
    local.tee $x
    local.get $x
  end
  i32.add
  i32.const 3
  block (type $eat)
    drop
  end
  i32.add
  i32.const 1
  i32.const 2
  block (param i32 i32) (result i32)
    i32.const 9
    block (param i32) (result i32)
      i32.const 1
      i32.add
    end
    i32.add
    i32.add
  end
  i32.add)''')
    k.run = loop_call('$f', [0, 3, 100])

    k = K('ctl-loop-params', 'ctl', note='loops with params (type index and inline), '
          'br/br_if to a loop carrying its params, from k = 0 and k = 1').emit()
    k.types.append('(type $l1 (func (param i32) (result i32)))')
    k.funcs.append('''(func $count (param $n i32) (result i32)
  (local $acc i32)
  i32.const 1000
  local.get $n
  loop $l (type $l1)
    local.tee $n
    local.get $acc
    i32.add
    local.set $acc
    local.get $n
    i32.const 1
    i32.sub
    local.tee $n
    local.get $n
    br_if $l
  end
  drop
  drop
  local.get $acc)''')
    k.funcs.append('''(func $gcd (param $a i32) (param $b i32) (result i32)
  i32.const 5
  local.get $a
  local.get $b
  loop $l (param i32 i32) (result i32)
    local.set $b
    local.set $a
    block $done
      local.get $b
      i32.eqz
      br_if $done
      i32.const 99
      local.get $b
      local.get $a
      local.get $b
      i32.rem_u
      br $l
    end
    local.get $a
  end
  i32.add)''')
    k.run = loop_call('$count', [1, 10, 30]) + '''
(call $e (call $gcd (i32.const 1071) (i32.const 462)))
(call $e (call $gcd (i32.const 17) (i32.const 0)))'''

    k = K('ctl-loop-many', 'ctl', note='loops iterating many times, nested loops, '
          'back edges by br_if and by br').emit()
    k.run_locals = '(local $i i32) (local $j i32) (local $s i32)'
    k.run = '''
(loop $outer
  (local.set $j (i32.const 0))
  (loop $inner
    (local.set $s (i32.add (local.get $s) (i32.mul (local.get $i) (local.get $j))))
    (local.set $j (i32.add (local.get $j) (i32.const 1)))
    (br_if $inner (i32.lt_u (local.get $j) (i32.const 30))))
  (local.set $i (i32.add (local.get $i) (i32.const 1)))
  (br_if $outer (i32.lt_u (local.get $i) (i32.const 30))))
(call $e (local.get $s))
(local.set $i (i32.const 0))
(block $exit
  (loop $l
    (br_if $exit (i32.ge_u (local.get $i) (i32.const 500)))
    (local.set $s (i32.xor (local.get $s) (local.get $i)))
    (local.set $i (i32.add (local.get $i) (i32.const 1)))
    (br $l)))
(call $e (local.get $s))'''

    k = K('ctl-if', 'ctl', note='if/else taken both ways, if without else taken and not, '
          'if with results and params, nested, values below').emit()
    k.funcs.append('''(func $f (param $c i32) (result i32)
  (local $r i32)
  i32.const 5
  local.get $c
  if (result i32)
    i32.const 10
  else
    i32.const 20
  end
  i32.add
  local.set $r
  local.get $c
  if
    local.get $r
    i32.const 1
    i32.add
    local.set $r
  end
  i32.const 3
  i32.const 4
  local.get $c
  i32.eqz
  if
    nop
  end
  i32.add
  local.get $r
  i32.add
  local.set $r
  local.get $r
  local.get $c
  if (param i32) (result i32)
    i32.const 2
    i32.mul
  else
    i32.const 3
    i32.add
  end
  local.set $r
  i32.const 8
  local.get $r
  local.get $c
  if (param i32) (result i32)
    i32.const 1
    i32.shl
  end
  i32.add
  local.set $r
  local.get $c
  if (result i32)
    local.get $c
    i32.const 1
    i32.gt_u
    if (result i32)
      i32.const 100
    else
      i32.const 200
    end
  else
    i32.const 300
  end
  local.get $r
  i32.add)''')
    k.run = loop_call('$f', [0, 1, 2])

    k = K('ctl-br-depth', 'ctl', note='br_if to labels k = 0..4 out (the function\'s own '
          'label last) with values below the carried one; br out of an if').emit()
    k.funcs.append('''(func $f (param $k i32) (result i32)
  i32.const 1000
  block $a (result i32)
    i32.const 100
    block $b (result i32)
      i32.const 10
      block $c (result i32)
        i32.const 1
        block $d (result i32)
          i32.const 7
          i32.const 8
          local.get $k
          local.get $k
          i32.eqz
          br_if $d
          local.get $k
          i32.const 1
          i32.eq
          br_if $c
          local.get $k
          i32.const 2
          i32.eq
          br_if $b
          local.get $k
          i32.const 3
          i32.eq
          br_if $a
          br 4
        end
        i32.add
      end
      i32.add
    end
    i32.add
  end
  i32.add)''')
    k.funcs.append('''(func $g (param $k i32) (result i32)
  block $a (result i32)
    i32.const 5
    block $b
      local.get $k
      if
        i32.const 3
        i32.const 42
        br $a
      end
      local.get $k
      i32.eqz
      if
        br $b
      end
    end
    i32.const 1
    i32.add
  end)''')
    k.run = loop_call('$f', [0, 1, 2, 3, 4, 5]) + '\n' + loop_call('$g', [0, 1])

    k = K('ctl-br-table', 'ctl', note='br_table to every target and the default, with '
          'values carried and below; to a loop from k = 3; out of a loop to an outer block and to '
          'the function\'s label').emit()
    k.funcs.append('''(func $bt (param $i i32) (result i32)
  i32.const 1000
  block $a (result i32)
    i32.const 100
    block $b (result i32)
      i32.const 10
      block $c (result i32)
        i32.const 3
        i32.const 4
        local.get $i
        i32.const 7
        i32.mul
        local.get $i
        br_table $c $b $a 3 $c
      end
      i32.add
    end
    i32.add
  end
  i32.add)''')
    k.funcs.append('''(func $bt2 (param $n i32) (result i32)
  (local $acc i32)
  loop $l
    block $x
      block $y
        block $z
          local.get $n
          i32.const 1
          i32.sub
          local.tee $n
          i32.const 4
          i32.rem_u
          br_table $x $y $z $l
        end
        local.get $acc
        i32.const 1
        i32.add
        local.set $acc
      end
      local.get $acc
      i32.const 10
      i32.add
      local.set $acc
    end
    local.get $n
    br_if $l
  end
  local.get $acc)''')
    k.funcs.append('''(func $bt3 (param $n i32) (result i32)
  i32.const 7
  block $out (result i32)
    i32.const 8
    loop $l
      i32.const 9
      block $in (result i32)
        local.get $n
        local.get $n
        i32.const 1
        i32.sub
        local.tee $n
        i32.const 3
        i32.gt_u
        if (result i32)
          i32.const 0
        else
          local.get $n
          i32.const 3
          i32.eq
          if (result i32)
            i32.const 1
          else
            i32.const 2
          end
        end
        br_table $in $out 3
      end
      drop
      drop
      br $l
    end
  end
  i32.add)''')
    k.run = (loop_call('$bt', [0, 1, 2, 3, 4, 100]) + '\n' + loop_call('$bt2', [1, 7, 40]) +
             '\n' + loop_call('$bt3', [10, 2]))

    k = K('ctl-br-function-label', 'ctl', note='br, br_if and br_table to the function\'s '
          'own label, with results and values below; kernel_run\'s own label').emit()
    k.funcs.append('''(func $f (param $k i32) (result i32)
  i32.const 50
  block
    block
      local.get $k
      i32.const 5
      i32.add
      local.get $k
      br_if 2
      drop
    end
  end
  local.get $k
  i32.add)''')
    k.funcs.append('''(func $g (param $k i32) (result i32 i32)
  block (result i32 i32)
    i32.const 1
    i32.const 2
    i32.const 3
    local.get $k
    br_table 0 0 1 0
  end
  i32.const 5
  i32.add)''')
    k.funcs.append('''(func $h (param $k i32) (result i32)
  i32.const 9
  local.get $k
  i32.const 10
  i32.lt_u
  if
    local.get $k
    i32.const 3
    i32.mul
    br 1
  end
  local.get $k
  br 0)''')
    k.funcs.append('''(func $v (param $k i32)
  loop $l
    local.get $k
    i32.eqz
    br_if 1
    local.get $k
    i32.const 1
    i32.sub
    local.set $k
    br $l
  end)''')
    k.run = (loop_call('$f', [0, 4]) + '\n' +
             '(call $e (i32.add (call $g (i32.const 0))))\n'
             '(call $e (i32.add (call $g (i32.const 2))))\n'
             '(call $e (i32.add (call $g (i32.const 7))))\n' +
             loop_call('$h', [2, 20]) + '\n(call $v (i32.const 5))\n'
             'call $flush\n'
             'block\n  i32.const 1\n  br_if 1\nend\nunreachable')
    k.autoflush = False

    k = K('ctl-br-kernel-run-nested', 'ctl', note='br to kernel_run\'s own label from '
          'inside nested blocks and a loop').emit()
    k.autoflush = False
    k.run_locals = '(local $i i32)'
    k.run = '''
(call $e (i32.const 1))
call $flush
loop $l
  block
    block
      local.get $i
      i32.const 1
      i32.add
      local.tee $i
      i32.const 4
      i32.lt_u
      br_if $l
      i32.const 1
      i32.const 2
      br 3
    end
  end
end'''

    k = K('ctl-return-clean', 'ctl', note='return from nested blocks, loops and ifs with '
          'exactly the results in the innermost label (R = 0, 1, 2); callers with values '
          'below the call').emit()
    k.funcs.append('''(func $r1 (param $k i32) (result i32)
  block
    loop
      local.get $k
      if
        local.get $k
        i32.const 3
        i32.mul
        return
      end
      i32.const 77
      return
    end
  end
  unreachable)''')
    k.funcs.append('''(func $r2 (param $k i32) (result i32 i64)
  i32.const 4
  drop
  block (result i32)
    block
      local.get $k
      i64.extend_i32_u
      i64.const 2
      i64.mul
      local.get $k
      i32.eqz
      br_if 0
      drop
      local.get $k
      i64.const 9
      return
    end
    i32.const 8
  end
  i64.const 6
  return)''')
    k.funcs.append('''(func $r0 (param $k i32)
  loop $l
    local.get $k
    i32.eqz
    if
      return
    end
    local.get $k
    i32.const 1
    i32.sub
    local.set $k
    br $l
  end)''')
    k.funcs.append('''(func $top (param $k i32) (result i32)
  local.get $k
  return)''')
    k.run = '''
(call $e (i32.add (i32.const 1000) (call $r1 (i32.const 0))))
(call $e (i32.add (i32.const 1000) (call $r1 (i32.const 5))))
i32.const 1
i32.const 2
(call $r2 (i32.const 0))
call $e64
call $e
(call $r2 (i32.const 3))
call $e64
call $e
i32.add
call $e
(call $r0 (i32.const 3))
(call $e (call $top (i32.const 11)))'''

    k = K('ctl-return-kernel-run', 'ctl', note='return from inside nested blocks of '
          'kernel_run itself, nothing else on the stack').emit()
    k.autoflush = False
    k.run_locals = '(local $i i32)'
    k.run = '''
(call $e (i32.const 3))
call $flush
block
  loop
    local.get $i
    i32.const 1
    i32.add
    local.tee $i
    i32.const 3
    i32.eq
    if
      return
    end
    br 0
  end
end'''


# ---------------------------------------------------------------------------------------
# garbage-return-: `return` with values below the results in the innermost label

def garbage_kernels():
    note = ('RULES.md 6.4 item 5: the values below the results travel to the caller and '
            'are paid for by every later concatenation')
    vnote = ('; then uses values that were below the results: with Octez\'s stack the '
             'computed values differ too (compare the outboxes)')
    g_func = '''(func $g (param $k i32) (result i32)
  block
    i32.const 11
    i32.const 22
    local.get $k
    return
  end
  i32.const 0)'''
    # callees shared by a tick-only variant and its values- twin
    m_func = '''(func $m (param $k i32) (result i32 i64)
  loop
    i32.const 1
    i64.const 2
    local.get $k
    if
      i32.const 3
      i32.const 4
      i32.const 5
      local.get $k
      i64.const 6
      return
    end
    drop
    drop
    local.get $k
    i32.const 1
    i32.add
    local.set $k
    br 0
  end
  unreachable)'''
    t_func = '''(func $t (param $k i32) (result i32)
  i32.const 1
  i32.const 2
  local.get $k
  return)'''
    f1_func = '''(func $f1 (param $x i32) (result i32)
  (call $g (local.get $x)))'''
    f3_func = '''(func $f3 (result i32)
  block (result i32)
    (call $f2 (i32.const 7))
  end)'''

    def table_of_g(k):
        """$g in a table, for call_indirect (type $t) at index 1."""
        k.funcs.append(g_func)
        k.types.append('(type $t (func (param i32) (result i32)))')
        k.tables.append('(table 2 funcref)')
        k.elems.append('(elem (i32.const 1) $g)')

    # Tick-only variants: the values below the results are never consumed, so the values
    # the kernel computes are the same with or without the quirk; only ticks differ.
    k = K('garbage-return-basic', 'garbage', note=note + '; only the result is used').emit()
    k.funcs.append(g_func)
    k.run = '''
i32.const 5
(call $e (call $g (i32.const 1)))
(call $e (call $g (i32.const 2)))
block (result i32)
  i32.const 3
end
call $e
drop'''

    k = K('garbage-return-block-exit', 'garbage', note=note + '; carried out of blocks by '
          'fallthrough ends and by a natural function end').emit()
    k.funcs.append(g_func)
    k.funcs.append('''(func $f (result i32)
  block (result i32)
    block (result i32)
      (call $g (i32.const 3))
    end
  end)''')
    k.run = '''
i32.const 1
block (result i32)
  i32.const 2
  block (result i32)
    (call $g (i32.const 4))
  end
  call $e
end
drop
(call $e (call $f))
(call $e (call $f))
drop'''

    k = K('garbage-return-chain', 'garbage', note=note + '; up three frames by natural '
          'ends').emit()
    k.funcs.append(g_func)
    k.funcs.append(f1_func)
    k.funcs.append('''(func $f2 (param $x i32) (result i32)
  (call $f1 (local.get $x)))''')
    k.funcs.append(f3_func)
    k.run = '(call $e (call $f3))\n(call $e (call $f2 (i32.const 1)))'

    k = K('garbage-return-multi', 'garbage', note=note + '; R = 2 with three values below, '
          'returned from inside an if in a loop').emit()
    k.funcs.append(m_func)
    k.run = '''
i32.const 9
(call $m (i32.const 0))
call $e64
call $e
(call $m (i32.const 4))
call $e64
call $e
drop'''

    k = K('garbage-return-call-indirect', 'garbage', note=note + '; through '
          'call_indirect').emit()
    table_of_g(k)
    k.run = '''
i32.const 6
(call $e (call_indirect (type $t) (i32.const 4) (i32.const 1)))
drop'''

    k = K('garbage-return-top', 'garbage', note=note + '; return with extra values in the '
          'function\'s own label').emit()
    k.funcs.append(t_func)
    k.run = '''
i32.const 3
(call $e (call $t (i32.const 9)))
drop'''

    k = K('garbage-return-values-basic', 'garbage', note=note + vnote).emit()
    k.funcs.append(g_func)
    k.run = '''
i32.const 5
(call $g (i32.const 1))
i32.add
call $e
(call $e (call $g (i32.const 2)))
block (result i32)
  i32.const 3
end
call $e'''

    k = K('garbage-return-values-block-exit', 'garbage', note=note + vnote).emit()
    k.funcs.append(g_func)
    k.funcs.append('''(func $f (result i32)
  i32.const 1
  block (result i32)
    i32.const 2
    block (result i32)
      (call $g (i32.const 3))
    end
    i32.add
  end
  i32.add)''')
    k.run = '(call $e (call $f))\n(call $e (call $f))'

    k = K('garbage-return-then-br', 'garbage', note=note + '; a br then trims them').emit()
    k.funcs.append(g_func)
    k.funcs.append('''(func $f (param $x i32) (result i32)
  block (result i32)
    i32.const 4
    block (result i32)
      (call $g (local.get $x))
      br 1
    end
    drop
  end
  local.get $x
  br_if 0
  i32.const 1
  i32.add)''')
    k.run = '(call $e (call $f (i32.const 0)))\n(call $e (call $f (i32.const 9)))'

    k = K('garbage-return-values-chain', 'garbage', note=note + vnote + '; up three frames by natural '
          'ends').emit()
    k.funcs.append(g_func)
    k.funcs.append(f1_func)
    k.funcs.append('''(func $f2 (param $x i32) (result i32)
  i32.const 100
  (call $f1 (local.get $x))
  i32.add)''')
    k.funcs.append(f3_func)
    k.run = '(call $e (call $f3))\n(call $e (call $f2 (i32.const 1)))'

    k = K('garbage-return-loop', 'garbage', note=note + '; accumulated in a loop label, '
          'trimmed by the back edge, kept by the last fallthrough').emit()
    k.funcs.append(g_func)
    k.run_locals = '(local $i i32)'
    k.run = '''
loop $l
  block
    (call $g (local.get $i))
    drop
  end
  local.get $i
  i32.const 1
  i32.add
  local.tee $i
  i32.const 10
  i32.lt_u
  br_if $l
end
(call $e (local.get $i))
loop $m
  (call $g (local.get $i))
  local.get $i
  i32.const 1
  i32.sub
  local.tee $i
  i32.const 5
  i32.gt_u
  br_if $m
  drop
end
(call $e (local.get $i))'''

    k = K('garbage-return-values-multi', 'garbage', note=note + vnote + '; R = 2 with three values below, '
          'returned from inside an if in a loop').emit()
    k.funcs.append(m_func)
    k.run = '''
i32.const 9
(call $m (i32.const 0))
call $e64
call $e
call $e
(call $m (i32.const 4))
drop
call $e'''

    k = K('garbage-return-br-table', 'garbage', note=note + '; then br_if not taken and '
          'br_table with the garbage as H').emit()
    k.funcs.append(g_func)
    k.funcs.append('''(func $f (param $i i32) (result i32)
  block $a (result i32)
    block $b (result i32)
      (call $g (local.get $i))
      i32.const 0
      br_if $b
      local.get $i
      br_table $b $a $b
    end
    i32.const 1
    i32.add
  end
  i32.const 2
  i32.mul)''')
    k.run = '\n'.join('(call $e (call $f (i32.const %d)))' % i for i in (0, 1, 2))

    k = K('garbage-return-values-call-indirect', 'garbage', note=note + vnote + '; through '
          'call_indirect').emit()
    table_of_g(k)
    k.run = '''
i32.const 6
(call_indirect (type $t) (i32.const 4) (i32.const 1))
i32.add
call $e'''

    k = K('garbage-return-kernel-run', 'garbage', note=note + '; kernel_run itself '
          'returns with values on its stack (the last frame trims, vs0 is counted)').emit()
    k.autoflush = False
    k.run = '''
(call $e (i32.const 1))
call $flush
i32.const 100
block
  i32.const 1
  i32.const 2
  return
end
drop'''

    k = K('garbage-return-values-clean-top', 'garbage', note=note + vnote + '; return with extra values '
          'in the function\'s own label').emit()
    k.funcs.append(t_func)
    k.run = '''
i32.const 3
(call $t (i32.const 9))
i32.add
call $e'''


# ---------------------------------------------------------------------------------------
# call-: calls with params and locals, multiple results, recursion, call_indirect

def call_kernels():
    k = K('call-many-params', 'call', note='12 params of both types, 18 locals in three '
          'groups, called in a loop').emit()
    k.funcs.append('''(func $f (param $a i32) (param $b i64) (param $c i32) (param $d i64)
        (param $e i32) (param $f i64) (param $g i32) (param $h i64)
        (param $i i32) (param $j i32) (param $k i32) (param $l i32) (result i64)
  (local $x0 i32) (local $x1 i32) (local $x2 i32)
  (local $y0 i64) (local $y1 i64) (local $y2 i64) (local $y3 i64)
  (local $z0 i32) (local $z1 i32) (local $z2 i32) (local $z3 i32) (local $z4 i32)
  (local $z5 i32) (local $z6 i32) (local $z7 i32) (local $z8 i32) (local $z9 i32)
  (local $z10 i32)
  (local.set $x0 (i32.add (local.get $a) (local.get $c)))
  (local.set $x1 (i32.add (local.get $e) (local.get $g)))
  (local.set $x2 (i32.add (local.get $i) (i32.add (local.get $j)
                 (i32.add (local.get $k) (local.get $l)))))
  (local.set $y0 (i64.add (local.get $b) (local.get $d)))
  (local.set $y1 (i64.add (local.get $f) (local.get $h)))
  (local.set $z10 (local.get $z9))
  (i64.add (i64.add (local.get $y0) (local.get $y1))
           (i64.extend_i32_u (i32.add (local.get $z10)
                 (i32.add (local.get $x0) (i32.add (local.get $x1) (local.get $x2)))))))''')
    k.run_locals = '(local $n i32)'
    k.run = '''
(loop $l
  (call $e64 (call $f (local.get $n) (i64.const 1) (i32.const 2) (i64.const 3)
                      (i32.const 4) (i64.const 5) (i32.const 6) (i64.const 7)
                      (i32.const 8) (i32.const 9) (i32.const 10) (local.get $n)))
  (local.set $n (i32.add (local.get $n) (i32.const 1)))
  (br_if $l (i32.lt_u (local.get $n) (i32.const 10))))'''

    k = K('call-multi-results', 'call', note='functions with 0, 2 and 3 results; values '
          'below the call in the caller (H_caller)').emit()
    k.funcs.append('''(func $three (param $x i32) (result i32 i64 i32)
  (local.get $x) (i64.extend_i32_s (local.get $x)) (i32.mul (local.get $x) (i32.const 2)))''')
    k.funcs.append('''(func $two (result i64 i64)
  (i64.const 1) (i64.const 2))''')
    k.funcs.append('''(func $none (param i32) (param i32))''')
    k.run = '''
i32.const 1
i32.const 2
i32.const 3
(call $three (i32.const -4))
call $e
call $e64
call $e
(call $none (i32.const 0) (i32.const 1))
call $two
i64.add
call $e64
i32.add
i32.add
call $e'''

    k = K('call-chain', 'call', note='a chain of calls with different param and local '
          'counts (P and L in the invoke cost)').emit()
    k.funcs.append('''(func $d (param i32 i32) (result i32) (local i32 i32)
  (i32.sub (local.get 0) (local.get 1)))''')
    k.funcs.append('''(func $c (result i32) (local i32 i32 i32 i32 i32 i32 i32 i32 i32 i32)
  (call $d (i32.const 10) (i32.const 3)))''')
    k.funcs.append('''(func $b (param i32 i64 i32) (result i32)
  (i32.add (local.get 0) (i32.add (call $c) (local.get 2))))''')
    k.funcs.append('''(func $a (param i32) (result i32) (local i64 i64 i64 i64 i64)
  (call $b (local.get 0) (i64.const 0) (i32.const 5)))''')
    k.run = '(call $e (call $a (i32.const 1)))\n(call $e (call $a (i32.const 2)))'

    k = K('call-recursion-fib', 'call', note='doubly recursive fib(14)').emit()
    k.funcs.append('''(func $fib (param $n i32) (result i32)
  (if (result i32) (i32.lt_u (local.get $n) (i32.const 2))
    (then (local.get $n))
    (else (i32.add (call $fib (i32.sub (local.get $n) (i32.const 1)))
                   (call $fib (i32.sub (local.get $n) (i32.const 2)))))))''')
    k.run = '(call $e (call $fib (i32.const 14)))'

    k = K('call-recursion-mutual', 'call', note='mutual recursion even/odd, depth 300').emit()
    k.funcs.append('''(func $even (param $n i32) (result i32)
  (if (result i32) (i32.eqz (local.get $n))
    (then (i32.const 1))
    (else (call $odd (i32.sub (local.get $n) (i32.const 1))))))''')
    k.funcs.append('''(func $odd (param $n i32) (result i32)
  (if (result i32) (i32.eqz (local.get $n))
    (then (i32.const 0))
    (else (call $even (i32.sub (local.get $n) (i32.const 1))))))''')
    k.run = '(call $e (call $even (i32.const 300)))\n(call $e (call $odd (i32.const 77)))'

    rec = '''(func $sum (param $n i32) (result i32)
  (if (result i32) (i32.eqz (local.get $n))
    (then (i32.const 0))
    (else (i32.add (local.get $n) (call $sum (i32.sub (local.get $n) (i32.const 1)))))))'''
    k = K('call-recursion-deep', 'call', note='recursion 20,000 frames deep').emit()
    k.funcs.append(rec)
    k.run = '(call $e (call $sum (i32.const 20000)))'

    for name, depth, note in [
            ('call-recursion-v0-edge-ok', 298,
             'PVM 2.0.0: 300 frames at most (the PVM\'s bottom frame, kernel_run, 298 more)'),
            ('call-recursion-v0-edge-over', 299,
             'PVM 2.0.0: one frame more than the limit: Stuck Eval_error (call stack '
             'exhausted)')]:
        k = K(name, 'call', args=['--pvm-version', '2.0.0'], inputs=IN_ONE, note=note)
        k.funcs.append(rec)
        k.run = '(drop (call $sum (i32.const %d)))' % (depth - 1)

    k = K('call-indirect', 'call', note='call_indirect through a table filled by two active '
          'elem segments, functions of three types').emit()
    k.types += ['(type $t1 (func (param i32) (result i32)))',
                '(type $t2 (func (param i32 i32) (result i32)))',
                '(type $t0 (func))']
    k.tables.append('(table 10 funcref)')
    k.funcs += ['(func $inc (type $t1) (i32.add (local.get 0) (i32.const 1)))',
                '(func $dbl (type $t1) (i32.mul (local.get 0) (i32.const 2)))',
                '(func $add (type $t2) (i32.add (local.get 0) (local.get 1)))',
                '(func $nop (type $t0) (local i32 i32))']
    k.elems += ['(elem (i32.const 2) $inc $dbl $add $inc)', '(elem (i32.const 7) $nop)']
    k.run_locals = '(local $i i32)'
    k.run = '''
(call $e (call_indirect (type $t1) (i32.const 5) (i32.const 2)))
(call $e (call_indirect (type $t1) (i32.const 5) (i32.const 3)))
(call $e (call_indirect (type $t2) (i32.const 5) (i32.const 6) (i32.const 4)))
(call_indirect (type $t0) (i32.const 7))
(loop $l
  (call $e (call_indirect (type $t1) (local.get $i)
             (i32.add (i32.const 2) (i32.mul (i32.and (local.get $i) (i32.const 1))
                                             (i32.const 3)))))
  (local.set $i (i32.add (local.get $i) (i32.const 1)))
  (br_if $l (i32.lt_u (local.get $i) (i32.const 6))))'''

    k = K('call-indirect-segments', 'call', note='passive and declarative elem segments '
          '(decoded and initialised, never used) beside an active one with an offset').emit()
    k.types.append('(type $t1 (func (param i32) (result i32)))')
    k.tables.append('(table 4 8 funcref)')
    k.funcs += ['(func $a (type $t1) (i32.add (local.get 0) (i32.const 100)))',
                '(func $b (type $t1) (i32.sub (local.get 0) (i32.const 100)))']
    k.elems += ['(elem (i32.const 3) $b)', '(elem func $a $b $a)', '(elem declare func $a)']
    k.run = '(call $e (call_indirect (type $t1) (i32.const 1) (i32.const 3)))'


# ---------------------------------------------------------------------------------------
# trap-: a trap at every kind of instruction that can trap

def trap_kernels():
    pre = '(call $e (i32.const 1))\ncall $flush\n'
    traps = [
        ('unreachable', 'unreachable'),
        ('i32-div-s-zero', '(drop (i32.div_s (i32.const 1) (i32.const 0)))'),
        ('i32-div-u-zero', '(drop (i32.div_u (i32.const 1) (i32.const 0)))'),
        ('i32-rem-s-zero', '(drop (i32.rem_s (i32.const 1) (i32.const 0)))'),
        ('i32-rem-u-zero', '(drop (i32.rem_u (i32.const 1) (i32.const 0)))'),
        ('i64-div-s-zero', '(drop (i64.div_s (i64.const 1) (i64.const 0)))'),
        ('i64-div-u-zero', '(drop (i64.div_u (i64.const 1) (i64.const 0)))'),
        ('i64-rem-s-zero', '(drop (i64.rem_s (i64.const 1) (i64.const 0)))'),
        ('i64-rem-u-zero', '(drop (i64.rem_u (i64.const 1) (i64.const 0)))'),
        ('i32-div-overflow', '(drop (i32.div_s (i32.const 0x80000000) (i32.const -1)))'),
        ('i64-div-overflow',
         '(drop (i64.div_s (i64.const 0x8000000000000000) (i64.const -1)))'),
        ('oob-i32-load', '(drop (i32.load (i32.const 65533)))'),
        ('oob-i64-load-offset', '(drop (i64.load offset=65530 (i32.const 0)))'),
        ('oob-load8-far', '(drop (i32.load8_u (i32.const -1)))'),
        ('oob-load16-edge', '(drop (i32.load16_s (i32.const 65535)))'),
        ('oob-i32-store', '(i32.store (i32.const 65534) (i32.const 1))'),
        ('oob-i64-store32', '(i64.store32 offset=4 (i32.const 65530) (i64.const 1))'),
        ('oob-store8', '(i32.store8 (i32.const 65536) (i32.const 1))'),
        ('oob-memory-fill', '(memory.fill (i32.const 65000) (i32.const 0) (i32.const 537))'),
        ('oob-memory-fill-n0', '(memory.fill (i32.const 65537) (i32.const 0) (i32.const 0))'),
        ('oob-memory-copy-src',
         '(memory.copy (i32.const 0) (i32.const 65530) (i32.const 7))'),
        ('oob-memory-copy-dst',
         '(memory.copy (i32.const 65535) (i32.const 0) (i32.const 2))'),
        ('oob-memory-copy-n0',
         '(memory.copy (i32.const 0) (i32.const 70000) (i32.const 0))'),
    ]
    for name, ins in traps:
        k = K('trap-' + name, 'trap').emit()
        k.autoflush = False
        k.run = pre + ins
    # call_indirect failures
    for name, idx, note in [('callind-null', 1, 'an empty table slot'),
                            ('callind-type', 0, 'a function of another type'),
                            ('callind-range', 5, 'an index past the table')]:
        k = K('trap-' + name, 'trap', note='call_indirect to ' + note).emit()
        k.autoflush = False
        k.types += ['(type $t1 (func (param i32) (result i32)))', '(type $t0 (func))']
        k.tables.append('(table 3 funcref)')
        k.funcs.append('(func $f (type $t0))')
        k.elems.append('(elem (i32.const 0) $f)')
        k.run = pre + '(drop (call_indirect (type $t1) (i32.const 1) (i32.const %d)))' % idx

    k = K('trap-in-callee', 'trap', note='unreachable three calls deep (the profiler\'s '
          'call graph is left open: the model gives no phases)').emit()
    k.autoflush = False
    k.funcs += ['(func $c (param i32) (result i32) (local i32) unreachable)',
                '(func $b (param i32) (result i32) (call $c (local.get 0)))',
                '(func $a (result i32) (i32.add (i32.const 1) (call $b (i32.const 2))))']
    k.run = pre + '(drop (call $a))'

    k = K('trap-div-in-callee-loop', 'trap', note='division by zero in a callee, after '
          'some loop iterations, inside nested blocks').emit()
    k.autoflush = False
    k.funcs.append('''(func $d (param $x i32) (result i32)
  block (result i32)
    i32.const 5
    block (result i32)
      i32.const 1000
      local.get $x
      i32.div_u
    end
    i32.add
  end)''')
    k.run_locals = '(local $i i32) (local $s i32)'
    k.run = pre + '''
(local.set $i (i32.const 5))
(loop $l
  (local.set $s (i32.add (local.get $s) (call $d (local.get $i))))
  (local.set $i (i32.sub (local.get $i) (i32.const 1)))
  (br $l))'''

    k = K('trap-in-nested-blocks', 'trap', note='an out-of-bounds load in kernel_run inside '
          'a loop, a block and an if, values on every stack').emit()
    k.autoflush = False
    k.run_locals = '(local $i i32)'
    k.run = pre + '''
i32.const 1
loop $l (result i32)
  i32.const 2
  block (result i32)
    i32.const 3
    local.get $i
    if (result i32)
      i32.const 4
      local.get $i
      i32.const 16384
      i32.mul
      i32.load
      i32.add
    else
      i32.const 5
    end
    i32.add
  end
  i32.add
  drop
  local.get $i
  i32.const 1
  i32.add
  local.set $i
  br $l
end
drop
drop'''


# ---------------------------------------------------------------------------------------
# host-: host functions with successful and error results (each result goes to the outbox)

def H(name, *args):
    return '(call $e (call $%s %s))' % (name, ' '.join(args))


def host_kernels():
    k = K('host-store-write-read', 'host', note='store_write/store_read/store_value_size, '
          'appending, partial reads and every error code they give').emit()
    k.imp('store_write', 'store_read', 'store_value_size')
    k.datas.append('(data (i32.const 0x6000) "%s")' % ('x' * 241))
    k.run = '\n'.join([
        H('store_write', '{K:/a/b}', '(i32.const 0)', '{K:hello}'),
        H('store_write', '{K:/a/b}', '(i32.const 5)', '{K: world}'),
        H('store_write', '{K:/a/b}', '(i32.const 2)', '{K:LL}'),
        H('store_write', '{K:/a/b}', '(i32.const 12)', '{K:hole}'),
        H('store_value_size', '{K:/a/b}'),
        H('store_read', '{K:/a/b}', '(i32.const 0)', '(i32.const 0x8000)', '(i32.const 100)'),
        '(drop (call $write_output (i32.const 0x8000) (i32.const 11)))',
        H('store_read', '{K:/a/b}', '(i32.const 6)', '(i32.const 0x8000)', '(i32.const 3)'),
        H('store_read', '{K:/a/b}', '(i32.const 11)', '(i32.const 0x8000)', '(i32.const 3)'),
        H('store_read', '{K:/a/b}', '(i32.const 10)', '(i32.const 0x8000)', '(i32.const 0)'),
        H('store_read', '{K:/a/missing}', '(i32.const 0)', '(i32.const 0x8000)', '(i32.const 4)'),
        H('store_read', '{K:/a/b}', '(i32.const 0)', '(i32.const 0x8000)', '(i32.const 3000)'),
        H('store_read', '{K:/a/b}', '(i32.const 0)', '(i32.const 65534)', '(i32.const 8)'),
        H('store_write', '{K:/a/big}', '(i32.const 0)', '(i32.const 0)', '(i32.const 2048)'),
        H('store_value_size', '{K:/a/big}'),
        H('store_read', '{K:/a/big}', '(i32.const 0)', '(i32.const 0x9000)', '(i32.const 2048)'),
        H('store_write', '{K:/a/big}', '(i32.const 0)', '(i32.const 0)', '(i32.const 2049)'),
        H('store_write', '{K:/a/big}', '(i32.const 0)', '(i32.const 0)', '(i32.const 5000)'),
        H('store_write', '{K:/readonly/x}', '(i32.const 0)', '{K:v}'),
        H('store_write', '{K:/a//b}', '(i32.const 0)', '{K:v}'),
        H('store_write', '{K:nokey}', '(i32.const 0)', '{K:v}'),
        H('store_write', '{K:/a/}', '(i32.const 0)', '{K:v}'),
        H('store_write', '{K:/a b}', '(i32.const 0)', '{K:v}'),
        H('store_write', '(i32.const 0x6000)', '(i32.const 241)', '(i32.const 0)', '{K:v}'),
        H('store_write', '(i32.const 65530)', '(i32.const 10)', '(i32.const 0)', '{K:v}'),
        H('store_write', '{K:/a/c}', '(i32.const 0)', '(i32.const 65530)', '(i32.const 10)'),
        H('store_value_size', '{K:/a/missing}'),
        H('store_value_size', '{K:/a}'),
    ])

    k = K('host-store-has-exists', 'host', note='store_has 0/1/2/3, store_exists, on '
          'kernel and readonly keys').emit()
    k.imp('store_write', 'store_has', 'store_exists')
    k.run = '\n'.join([
        H('store_write', '{K:/v}', '(i32.const 0)', '{K:1}'),
        H('store_write', '{K:/t/c}', '(i32.const 0)', '{K:2}'),
        H('store_write', '{K:/b}', '(i32.const 0)', '{K:3}'),
        H('store_write', '{K:/b/c}', '(i32.const 0)', '{K:4}'),
    ] + [H(fn, '{K:%s}' % key) for fn in ('store_has', 'store_exists')
         for key in ('/missing', '/v', '/t', '/b', '/kernel', '/readonly/wasm_version',
                     '/kernel/boot.wasm', '/t/c/d')] + [
        H('store_has', '{K:/bad//key}'),
        H('store_exists', '(i32.const 65535)', '(i32.const 4)'),
    ])

    k = K('host-store-delete', 'host', note='store_delete of a value, a subtree, a missing '
          'key, a readonly key; store_delete_value keeping subkeys').emit()
    k.imp('store_write', 'store_delete', 'store_delete_value', 'store_has')
    k.run = '\n'.join([
        H('store_write', '{K:/d/x}', '(i32.const 0)', '{K:1}'),
        H('store_write', '{K:/d/y}', '(i32.const 0)', '{K:2}'),
        H('store_write', '{K:/d}', '(i32.const 0)', '{K:3}'),
        H('store_write', '{K:/e}', '(i32.const 0)', '{K:4}'),
        H('store_write', '{K:/e/f}', '(i32.const 0)', '{K:5}'),
        H('store_delete', '{K:/d/x}'),
        H('store_has', '{K:/d}'),
        H('store_delete', '{K:/d}'),
        H('store_has', '{K:/d}'),
        H('store_has', '{K:/d/y}'),
        H('store_delete', '{K:/nothing/here}'),
        H('store_delete', '{K:/readonly/wasm_version}'),
        H('store_delete_value', '{K:/e}'),
        H('store_has', '{K:/e}'),
        H('store_delete_value', '{K:/readonly/wasm_version}'),
        H('store_delete', '{K:/x/}'),
        H('store_delete', '{K:/e}'),
    ])

    k = K('host-store-list-size', 'host', note='store_list_size (an i64 result) of nodes '
          'with a value and children, missing nodes, errors').emit()
    k.imp('store_write', 'store_list_size')
    k.run = '\n'.join([
        H('store_write', '{K:/l}', '(i32.const 0)', '{K:1}'),
        H('store_write', '{K:/l/a}', '(i32.const 0)', '{K:2}'),
        H('store_write', '{K:/l/b/c}', '(i32.const 0)', '{K:3}'),
    ] + ['(call $e64 (call $store_list_size {K:%s}))' % key
         for key in ('/l', '/l/a', '/l/b', '/none', '/kernel', '/readonly', '/l/b/c')] + [
        '(call $e64 (call $store_list_size {K:l}))',
        '(call $e64 (call $store_list_size (i32.const 65535) (i32.const 10)))',
    ])

    k = K('host-store-copy-move', 'host', note='store_copy/store_move of subtrees, from '
          'readonly, to readonly, missing sources').emit()
    k.imp('store_write', 'store_copy', 'store_move', 'store_read', 'store_has')
    rd = lambda key: H('store_read', '{K:%s}' % key, '(i32.const 0)', '(i32.const 0x8000)',
                       '(i32.const 16)')
    k.run = '\n'.join([
        H('store_write', '{K:/s}', '(i32.const 0)', '{K:root}'),
        H('store_write', '{K:/s/k}', '(i32.const 0)', '{K:child}'),
        H('store_copy', '{K:/s}', '{K:/t}'),
        rd('/t'), rd('/t/k'),
        H('store_write', '{K:/u/old}', '(i32.const 0)', '{K:gone}'),
        H('store_move', '{K:/t}', '{K:/u}'),
        H('store_has', '{K:/t}'), H('store_has', '{K:/u/old}'), rd('/u/k'),
        H('store_copy', '{K:/nothing}', '{K:/w}'),
        H('store_move', '{K:/nothing}', '{K:/w}'),
        H('store_copy', '{K:/s}', '{K:/readonly/s}'),
        H('store_move', '{K:/readonly/wasm_version}', '{K:/w}'),
        H('store_copy', '{K:/readonly/wasm_version}', '{K:/ver}'),
        rd('/ver'),
        H('store_copy', '{K:/s}', '{K:bad}'),
        H('store_move', '{K:/s/k}', '{K:/s/k2}'),
        H('store_has', '{K:/s}'),
    ])

    k = K('host-read-input', 'host', inputs=IN_MIXED, note='read_input of every message '
          '(external, internal transfers, serialized) over three levels; each echoed with '
          'its level and id').emit()
    k.imp('read_input')
    k.autoflush = False
    k.run_locals = '(local $n i32)'
    k.run = '''
(loop $l
  (local.set $n (call $read_input (i32.const 16) (i32.const 0x8000) (i32.const 4096)))
  (call $e (local.get $n))
  (call $e (i32.load (i32.const 16)))
  (call $e (i32.load (i32.const 20)))
  (drop (call $write_output (i32.const 0x8000) (local.get $n)))
  (br_if $l (local.get $n)))
call $flush'''

    k = K('host-read-input-edges', 'host', inputs=[
        [{'external': '0102030405'}, {'external': 'aabbcc'}, {'external': '11'},
         {'external': '22'}, {'external': '33'}],
        [{'external': '44'}]], note='read_input truncating, with max_bytes 0, with the '
        'info or the buffer out of bounds (and at the edge), and once empty').emit()
    k.imp('read_input')
    k.run = '\n'.join([
        H('read_input', '(i32.const 16)', '(i32.const 0x8000)', '(i32.const 2)'),
        H('read_input', '(i32.const 16)', '(i32.const 0x8000)', '(i32.const 0)'),
        H('read_input', '(i32.const 65528)', '(i32.const 0x8000)', '(i32.const 8)'),
        H('read_input', '(i32.const 16)', '(i32.const 65530)', '(i32.const 6)'),
        H('read_input', '(i32.const 16)', '(i32.const 65530)', '(i32.const 5)'),
        H('read_input', '(i32.const 16)', '(i32.const 0x8000)', '(i32.const 5000)'),
        '(call $e (i32.load (i32.const 0x8000)))',
        H('read_input', '(i32.const 16)', '(i32.const 0x8000)', '(i32.const 100)'),
        H('read_input', '(i32.const 16)', '(i32.const 0x8000)', '(i32.const 100)'),
        H('read_input', '(i32.const 16)', '(i32.const 0x8000)', '(i32.const 100)'),
        H('read_input', '(i32.const 16)', '(i32.const 0x8000)', '(i32.const 100)'),
        '(call $e (i32.load (i32.const 16)))',
        '(call $e (i32.load (i32.const 20)))',
    ])

    k = K('host-write-output', 'host', note='write_output: empty, normal, 4096 and 4097 '
          'bytes, out of bounds, then the outbox full (100 messages a level)').emit()
    k.autoflush = False
    k.run_locals = '(local $i i32)'
    k.run = '\n'.join([
        H('write_output', '(i32.const 0)', '(i32.const 0)'),
        H('write_output', '{K:out}'),
        H('write_output', '(i32.const 0x8000)', '(i32.const 4096)'),
        H('write_output', '(i32.const 0x8000)', '(i32.const 4097)'),
        H('write_output', '(i32.const 65530)', '(i32.const 7)'),
        H('write_output', '(i32.const -1)', '(i32.const 1)'),
        'call $flush',
        '''(loop $l
  (i32.store (i32.const 0x7000) (call $write_output {K:spam}))
  (local.set $i (i32.add (local.get $i) (i32.const 1)))
  (br_if $l (i32.lt_u (local.get $i) (i32.const 100))))''',
    ])

    k = K('host-write-debug', 'host', note='write_debug of text, empty, out of bounds').emit()
    k.imp('write_debug')
    k.run = '''
(call $write_debug {K:debug line\n})
(call $write_debug (i32.const 0) (i32.const 0))
(call $write_debug (i32.const 65530) (i32.const 10))
(call $write_debug (i32.const 0x8000) (i32.const 3000))
(call $e (i32.const 1))'''

    k = K('host-reveal-metadata', 'host', args=['--rollup', ROLLUP], note='reveal_metadata '
          'with --rollup: whole, truncated, max 0').emit()
    k.imp('reveal_metadata')
    k.run = '\n'.join([
        H('reveal_metadata', '(i32.const 0x8000)', '(i32.const 100)'),
        '(drop (call $write_output (i32.const 0x8000) (i32.const 24)))',
        H('reveal_metadata', '(i32.const 0x9000)', '(i32.const 10)'),
        '(drop (call $write_output (i32.const 0x9000) (i32.const 12)))',
        H('reveal_metadata', '(i32.const 0xa000)', '(i32.const 0)'),
    ])

    preimage = bytes(range(256)) * 2 + b'the end'
    hash_ = b'\x00' + hashlib.blake2b(preimage, digest_size=32).digest()
    k = K('host-reveal-preimage', 'host', args=['--preimage-dir', '@DIR@/preimages'],
          note='reveal_preimage of a %d-byte preimage: whole, truncated; hash too long, '
          'hash out of bounds' % len(preimage)).emit()
    k.preimages = {hash_.hex(): preimage}
    k.imp('reveal_preimage')
    k.blob('hash', hash_)
    k.run = '\n'.join([
        H('reveal_preimage', '{K:@hash}', '(i32.const 0x8000)', '(i32.const 4096)'),
        '(call $e (i32.load (i32.const 0x8200)))',
        H('reveal_preimage', '{K:@hash}', '(i32.const 0x9000)', '(i32.const 10)'),
        '(call $e (i32.load (i32.const 0x9008)))',
        H('reveal_preimage', '{A:@hash}', '(i32.const 5000)', '(i32.const 0x9000)',
          '(i32.const 10)'),
        H('reveal_preimage', '(i32.const 65530)', '(i32.const 33)', '(i32.const 0x9000)',
          '(i32.const 10)'),
    ])

    k = K('host-pvm-keys', 'host', inputs=IN_THREE, note='the keys the PVM writes: '
          'reboot_counter, wasm_version, boot.wasm and its fallback copy').emit()
    k.imp('store_read', 'store_value_size', 'store_has')
    k.run = '\n'.join([
        H('store_read', '{K:/readonly/kernel/env/reboot_counter}', '(i32.const 0)',
          '(i32.const 0x8000)', '(i32.const 4)'),
        '(call $e (i32.load (i32.const 0x8000)))',
        H('store_read', '{K:/readonly/wasm_version}', '(i32.const 0)', '(i32.const 0x8100)',
          '(i32.const 64)'),
        '(drop (call $write_output (i32.const 0x8100) (i32.const 8)))',
        H('store_value_size', '{K:/kernel/boot.wasm}'),
        H('store_read', '{K:/kernel/boot.wasm}', '(i32.const 0)', '(i32.const 0x8200)',
          '(i32.const 8)'),
        '(call $e64 (i64.load (i32.const 0x8200)))',
        H('store_has', '{K:/readonly/kernel/boot.wasm}'),
        H('store_has', '{K:/kernel/env/reboot}'),
        H('store_has', '{K:/readonly/kernel/env/stuck}'),
    ])


# ---------------------------------------------------------------------------------------
# reboot-: kernels that ask for more runs through /kernel/env/reboot

REBOOT = '(drop (call $store_write {K:/kernel/env/reboot} (i32.const 0) (i32.const 0) ' \
         '(i32.const 0)))'


def reboot_kernels():
    k = K('reboot-counter', 'reboot', inputs=IN_THREE, note='three runs per level: a '
          'counter in durable storage, reboot until it reaches 3').emit()
    k.imp('store_read', 'store_write', 'store_delete')
    k.run_locals = '(local $n i32)'
    k.run = '''
(i32.store (i32.const 0x8000) (i32.const 0))
(drop (call $store_read {K:/n} (i32.const 0) (i32.const 0x8000) (i32.const 4)))
(local.set $n (i32.add (i32.load (i32.const 0x8000)) (i32.const 1)))
(i32.store (i32.const 0x8000) (local.get $n))
(call $e (local.get $n))
(drop (call $store_read {K:/readonly/kernel/env/reboot_counter} (i32.const 0)
                        (i32.const 0x8004) (i32.const 4)))
(call $e (i32.load (i32.const 0x8004)))
(if (i32.lt_u (local.get $n) (i32.const 3))
  (then
    (drop (call $store_write {K:/n} (i32.const 0) (i32.const 0x8000) (i32.const 4)))
    %s)
  (else (drop (call $store_delete {K:/n}))))''' % REBOOT

    k = K('reboot-echo', 'reboot', inputs=[
        [{'external': '6f6e65'}, {'external': '74776f'}],
        [],
        [{'external': 'aa'}, {'payload': '0x0102'}, {'external': 'bb'}]],
        note='one input per run, echoed; reboot while read_input returns bytes (every '
        'level: SOL, Info_per_level, the messages, EOL)')
    k.imp('read_input', 'write_output', 'store_write')
    k.run_locals = '(local $n i32)'
    k.run = '''
(local.set $n (call $read_input (i32.const 16) (i32.const 0x8000) (i32.const 4096)))
(if (local.get $n)
  (then
    (drop (call $write_output (i32.const 0x8000) (local.get $n)))
    %s))''' % REBOOT

    k = K('reboot-forced-yield', 'reboot', inputs=[[], [{'external': '01'}]],
          note='reboots every run: 1001 runs, then the forced yield; the next level sees '
          '/readonly/kernel/env/too_many_reboot and yields')
    k.imp('store_has', 'store_write', 'write_output')
    k.run = '''
(if (i32.eqz (call $store_has {K:/readonly/kernel/env/too_many_reboot}))
  (then %s)
  (else (drop (call $write_output {K:too many}))))''' % REBOOT

    k = K('reboot-trap-then-run', 'reboot', inputs=IN_THREE, note='a run that reboots, '
          'the next one traps; the level after sees /readonly/kernel/env/stuck').emit()
    k.imp('store_has', 'store_write', 'store_delete')
    k.autoflush = False
    k.run = '''
(call $e (call $store_has {K:/readonly/kernel/env/stuck}))
call $flush
(if (call $store_has {K:/x})
  (then
    (drop (call $store_delete {K:/x}))
    unreachable))
(drop (call $store_write {K:/x} (i32.const 0) (i32.const 0) (i32.const 1)))
%s''' % REBOOT

    k = K('reboot-yield-drops-inputs', 'reboot', inputs=[
        [{'external': '01'}, {'external': '02'}, {'external': '03'}],
        [{'external': '04'}, {'external': '05'}]],
        note='each run reads two inputs (SOL, Info_per_level) and yields: the messages '
        'are dropped').emit()
    k.imp('read_input')
    k.run = '\n'.join([
        H('read_input', '(i32.const 16)', '(i32.const 0x8000)', '(i32.const 100)'),
        '(call $e (i32.load (i32.const 20)))',
        H('read_input', '(i32.const 16)', '(i32.const 0x8000)', '(i32.const 100)'),
        '(call $e (i32.load (i32.const 20)))',
    ])


# ---------------------------------------------------------------------------------------
# upgrade-: kernels that install another kernel at /kernel/boot.wasm and reboot

UPGRADES = [
    ('upgrade-ok', 'a valid kernel (write_debug) that then runs', '''(module
  (import "smart_rollup_core" "write_output" (func $w (param i32 i32) (result i32)))
  (memory (export "mem") 1)
  (data (i32.const 0) "upgraded")
  (func (export "kernel_run") (drop (call $w (i32.const 0) (i32.const 8)))))'''),
    ('upgrade-init-error', 'a kernel that does not export its memory: Init_error, the '
     'fallback is restored', '''(module
  (memory 1)
  (func (export "kernel_run")))'''),
    ('upgrade-link-error', 'a kernel importing an unknown host function: Link_error, the '
     'fallback is restored', '''(module
  (import "smart_rollup_core" "write_output" (func $w (param i32 i32) (result i32)))
  (import "smart_rollup_core" "no_such_function" (func $x))
  (memory (export "mem") 1)
  (func (export "kernel_run")))'''),
    ('upgrade-no-kernel-run', 'a kernel without kernel_run: stuck for good', '''(module
  (memory (export "mem") 1)
  (func (export "other")))'''),
    ('upgrade-decode-error', 'bytes that are not a module: Decode_error, the fallback is '
     'restored (the model does not give that tick)', None),
]


def upgrade_kernels(compiled):
    for name, note, _ in UPGRADES:
        new = compiled[name]
        k = K(name, 'upgrade', inputs=[[{'external': '01'}], [{'external': '02'}], []],
              note='level 0 installs ' + note)
        k.imp('store_has', 'store_write', 'store_delete', 'write_output')
        k.blob('new', new)
        k.run = '''
(drop (call $write_output {K:old kernel}))
(if (i32.eqz (call $store_has {K:/done}))
  (then
    (drop (call $store_write {K:/done} (i32.const 0) (i32.const 0) (i32.const 0)))
    (drop (call $store_delete {K:/kernel/boot.wasm}))
    (drop (call $store_write {K:/kernel/boot.wasm} (i32.const 0) {K:@new}))
    %s))''' % REBOOT


# ---------------------------------------------------------------------------------------
# struct-: module structure (decode, link and init costs)

def struct_kernels():
    k = K('struct-minimal', 'struct', note='the smallest kernel: one memory, kernel_run')
    k.run = ''

    k = K('struct-minimal-stripped', 'struct', note='the same without a name section')
    k.debug_names = False
    k.run = 'nop'

    k = K('struct-custom-sections', 'struct', note='two extra custom sections appended '
          '(one step each, whatever their size)')
    k.custom = [('producers', b'\x00'), ('blob', bytes(3000))]
    k.run = 'nop'

    k = K('struct-data-segments', 'struct', note='four active data segments at several '
          'offsets and a passive one').emit()
    k.datas += ['(data (i32.const 0x100) "abcd")', '(data (i32.const 0x200) "")',
                '(data (i32.const 0xfff0) "0123456789abcdef")',
                '(data (i32.const 0x300) "\\ff\\fe\\fd")', '(data "passive bytes")']
    k.run = '''
(call $e (i32.load (i32.const 0x100)))
(call $e (i32.load (i32.const 0xfffc)))
(call $e (i32.load (i32.const 0x300)))'''

    k = K('struct-big-data', 'struct', note='a 3000-byte active data segment (42 init '
          'ticks a byte)').emit()
    k.datas.append('(data (i32.const 0x1000) %s)' % wat_string(bytes(i % 251 for i in range(3000))))
    k.run = '(call $e (i32.load (i32.const 0x1bb8)))'

    k = K('struct-globals', 'struct', note='twenty globals of both types, mutable and not')
    k.globals += ['(global $g%d %s (%s.const %d))' % (i, '(mut %s)' % t if i % 3 else t, t,
                                                        i * 1000 - 7)
                  for i in range(20) for t in [('i32', 'i64')[i % 2]]]
    k.run = '(global.set $g1 (global.get $g3))\n(drop (global.get $g2))'

    k = K('struct-exports-utf8', 'struct', note='exports with multi-byte UTF-8 names '
          '(decoded per code point), of a function, a global, a table and the memory')
    k.mem = '(memory (export "mém") 1)'
    k.tables.append('(table (export "tablé") 1 funcref)')
    k.globals.append('(global (export "日本語") i32 (i32.const 1))')
    k.funcs.append('(func (export "🎉fête") (result i32) (i32.const 2))')
    k.funcs.append('(func (export "f") (export "g") (export "long_export_name_0123456789"))')
    k.run = 'nop'

    k = K('struct-types-unused', 'struct', note='type entries with many params and results, '
          'never used')
    k.types += ['(type (func (param i32 i64 i32 i64 i32) (result i64 i32)))',
                '(type (func (result i32 i32 i32 i32)))',
                '(type (func (param i64)))',
                '(type (func))']
    k.run = ''

    k = K('struct-funcs-unused', 'struct', note='functions never called, with blocks, loops '
          'and ifs (with and without else) to elaborate')
    for i in range(6):
        k.funcs.append('''(func (param i32) (result i32) (local i64) (local i32 i32)
  (block (result i32)
    (loop (result i32)
      (if (result i32) (local.get 0)
        (then (i32.const %d))
        (else (if (local.get 0) (then nop)) (i32.const 2))))))''' % i)
    k.run = 'nop'

    k = K('struct-imports-unused', 'struct', note='every host function of 2.0.0-r6 the '
          'model links, imported and never called (one link tick each)')
    k.imp('read_input', 'write_output', 'write_debug', 'store_has', 'store_list_size',
          'store_get_nth_key', 'store_delete', 'store_delete_value', 'store_copy',
          'store_move', 'store_value_size', 'store_read', 'store_write', 'store_create',
          'store_exists', '__internal_store_get_hash', 'reveal_preimage', 'reveal_metadata',
          'reveal', 'nds_registry_resize', 'nds_store_exists')
    k.run = ''

    k = K('struct-limits', 'struct', note='a table and a memory with maximum sizes, memory '
          'exported as "memory", kernel_run with locals (21 + 2L)')
    k.mem = '(memory 2 5) (export "memory" (memory 0))'
    k.tables.append('(table 4 10 funcref)')
    k.run_locals = '(local i32 i64 i32 i32 i64 i64 i32)'
    k.run = '(local.set 0 (i32.const 1))'


# ---------------------------------------------------------------------------------------
# tickcap-: a small ticks_per_snapshot (5000, or the edge of the first run's count)

def tickcap_kernels():
    k = K('tickcap-fits', 'tickcap', tps=5000, inputs=IN_THREE, note='small work, period '
          '5000').emit()
    k.run_locals = '(local $i i32)'
    k.run = '''
(loop $l
  (local.set $i (i32.add (local.get $i) (i32.const 1)))
  (br_if $l (i32.lt_u (local.get $i) (i32.const 50))))
(call $e (local.get $i))'''

    k = K('tickcap-loop-forever', 'tickcap', tps=5000, note='an endless loop: Stuck '
          'Too_many_ticks at the period\'s end')
    k.run = '(loop $l (br $l))'

    k = K('tickcap-reboots', 'tickcap', tps=5000, inputs=IN_THREE, note='a counter '
          'rebooting three times a level, every run within a 5000-tick period').emit()
    k.imp('store_read', 'store_write', 'store_delete')
    k.run_locals = '(local $n i32)'
    k.run = '''
(i32.store (i32.const 0x8000) (i32.const 0))
(drop (call $store_read {K:/n} (i32.const 0) (i32.const 0x8000) (i32.const 4)))
(local.set $n (i32.add (i32.load (i32.const 0x8000)) (i32.const 1)))
(i32.store (i32.const 0x8000) (local.get $n))
(call $e (local.get $n))
(if (i32.lt_u (local.get $n) (i32.const 4))
  (then
    (drop (call $store_write {K:/n} (i32.const 0) (i32.const 0x8000) (i32.const 4)))
    %s)
  (else (drop (call $store_delete {K:/n}))))''' % REBOOT

    k = K('tickcap-init-too-long', 'tickcap', tps=5000, note='a 200-byte data segment: '
          'decode fits, init does not')
    k.datas.append('(data (i32.const 0) %s)' % wat_string(bytes(200)))
    k.run = ''

    k = K('tickcap-decode-too-long', 'tickcap', tps=5000, note='a 6000-byte data segment: '
          'the period ends during decode')
    k.datas.append('(data (i32.const 0) %s)' % wat_string(bytes(6000)))
    k.run = ''

    for name, edge, what in [('tickcap-edge-fit', 'edge-fit', 'one tick more than the '
                              'first run needs: it just fits'),
                             ('tickcap-edge-late', 'edge-late', 'exactly the first run\'s '
                              'count: Padding comes one tick too late, Too_many_ticks')]:
        k = K(name, 'tickcap', tps=edge, inputs=IN_ONE, note='ticks_per_snapshot = ' + what)
        k.run_locals = '(local $i i32)'
        k.run = '''
(loop $l
  (local.set $i (i32.add (local.get $i) (i32.const 1)))
  (br_if $l (i32.lt_u (local.get $i) (i32.const 20))))'''


# ---------------------------------------------------------------------------------------

def wat2wasm(tool, text, out, debug_names=True):
    """Converts text to out; returns None or wat2wasm's error."""
    with tempfile.NamedTemporaryFile('w', suffix='.wat', delete=False) as f:
        f.write(text)
        src = f.name
    try:
        cmd = [tool] + (['--debug-names'] if debug_names else []) + [src, '-o', out]
        p = subprocess.run(cmd, capture_output=True, text=True)
        return None if p.returncode == 0 else (p.stderr.strip() or 'wat2wasm failed')
    except OSError as e:
        return str(e)
    finally:
        os.unlink(src)


def custom_section(name, payload):
    body = leb(len(name.encode())) + name.encode() + payload
    return b'\x00' + leb(len(body)) + body


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('outdir')
    ap.add_argument('--wat2wasm', default='wat2wasm')
    args = ap.parse_args()
    out = args.outdir
    os.makedirs(out, exist_ok=True)

    # the modules the upgrade kernels install
    compiled = {}
    for name, _, text in UPGRADES:
        if text is None:
            compiled[name] = b'\x00asm\x01\x00\x00\x00\x01\x05garbage'
            continue
        path = os.path.join(out, name + '.new.wasm')
        err = wat2wasm(args.wat2wasm, text, path)
        if err:
            print('gen_corpus: %s (installed module): %s' % (name, err), file=sys.stderr)
            return 1
        with open(path, 'rb') as f:
            compiled[name] = f.read()

    num_kernels()
    mem_kernels()
    var_kernels()
    ctl_kernels()
    garbage_kernels()
    call_kernels()
    trap_kernels()
    host_kernels()
    reboot_kernels()
    upgrade_kernels(compiled)
    struct_kernels()
    tickcap_kernels()

    manifest = []
    names = set()
    for k in CORPUS:
        assert k.name not in names, k.name
        names.add(k.name)
        text = k.text()
        wat = os.path.join(out, k.name + '.wat')
        wasm = os.path.join(out, k.name + '.wasm')
        inputs = os.path.join(out, k.name + '.inputs.json')
        with open(wat, 'w') as f:
            f.write(text)
        with open(inputs, 'w') as f:
            json.dump(k.inputs, f)
            f.write('\n')
        err = wat2wasm(args.wat2wasm, text, wasm, k.debug_names)
        if err is None and k.custom:
            with open(wasm, 'ab') as f:
                for cname, payload in k.custom:
                    f.write(custom_section(cname, payload))
        for h, data in getattr(k, 'preimages', {}).items():
            os.makedirs(os.path.join(out, 'preimages'), exist_ok=True)
            with open(os.path.join(out, 'preimages', h), 'wb') as f:
                f.write(data)
        manifest.append({'name': k.name, 'group': k.group, 'wasm': wasm, 'inputs': inputs,
                         'args': k.args, 'ticks_per_snapshot': k.tps, 'note': k.note,
                         'error': err})
    with open(os.path.join(out, 'corpus.json'), 'w') as f:
        json.dump(manifest, f, indent=1)
        f.write('\n')
    bad = [m for m in manifest if m['error']]
    print('gen_corpus: %d kernels in %s%s' % (len(manifest), out,
                                             ', %d refused by wat2wasm' % len(bad) if bad else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
