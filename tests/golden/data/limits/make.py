#!/usr/bin/env python3
"""Writes the data files of the golden tests of docs/limits.md (tests/golden/limit-*.cmd):
modules, inputs files and traces that go just past one limit each (the .wat files beside
them are written by hand). The files are committed: after changing this script, run it
(python3 tests/golden/data/limits/make.py) and review the diff. `--big DIR` writes instead,
into DIR, the inputs too large to commit, which tests/golden/run.sh makes at test time."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', '..', 'difftest'))
from wasmbin import uleb  # noqa: E402 (the module's LEB128, one copy)


def section(sid, body):
    return bytes([sid]) + uleb(len(body)) + body


def vec(items):
    return uleb(len(items)) + b''.join(items)


def name(s):
    return uleb(len(s)) + s


HEADER = b'\0asm\1\0\0\0'
VOID = b'\x60\x00\x00'  # () -> ()
I32 = b'\x7f'


def module(types, funcs, bodies, exports, memory=None):
    """types: encoded function types; funcs: type indices; bodies: encoded bodies (locals
    and code, without their size); exports: (name, kind, index)."""
    m = HEADER + section(1, vec(types)) + section(3, vec([uleb(t) for t in funcs]))
    if memory is not None:
        m += section(5, vec([memory]))
    m += section(7, vec([name(n) + bytes([k]) + uleb(i) for n, k, i in exports]))
    return m + section(10, vec([uleb(len(b)) + b for b in bodies]))


def write(path, data):
    with open(os.path.join(HERE, path), 'wb' if isinstance(data, bytes) else 'w') as f:
        f.write(data)


def modules():
    # MAX_LOCALS (decode/decode.c): 50,001 locals in one body
    write('locals-50001.wasm',
          module([VOID], [0], [uleb(1) + uleb(50001) + I32 + b'\x0b'], [(b'f', 0, 0)]))
    # MAX_ARITY (decode/translate.c): a function of 1,001 params
    write('params-1001.wasm',
          module([b'\x60' + vec([I32] * 1001) + b'\x00'], [0], [b'\x00\x0b'], [(b'f', 0, 0)]))
    # 65,536 pages at most (the spec's limit and the PVM's)
    write('memory-65537.wasm', HEADER + section(5, vec([b'\x00' + uleb(65537)])))
    # a vector count past the module's end: 2^32-1 types in 5 bytes
    write('type-count.wasm', HEADER + section(1, uleb(0xFFFFFFFF)))
    # a name whose length runs past the module's end: an export named by 1,000 bytes
    write('name-length.wasm',
          HEADER + section(1, vec([VOID])) + section(3, vec([b'\x00'])) +
          section(7, b'\x01' + uleb(1000) + b'f\x00\x00'))
    # a br_table whose target count runs past the body's end
    body = b'\x00' + b'\x02\x40' + b'\x41\x00' + b'\x0e' + uleb(100000) + b'\x00\x00' + \
        b'\x0b\x0b'
    write('br-table-count.wasm', module([VOID], [0], [body], [(b'f', 0, 0)]))
    # The value stack (4,194,304 slots in the PVM, 1,048,576 in invoke): a function of
    # 50,000 locals calls itself 100 times: a kernel, and a plain module (no imports).
    n_local = b'\x20\x00'  # local.get 0
    recurse = (uleb(1) + uleb(50000) + b'\x7e' +           # 50,000 i64 locals
               n_local + b'\x04\x40' +                     # if (local.get 0)
               n_local + b'\x41\x01\x6b' + b'\x10\x00' +   # call 0 (n - 1)
               b'\x0b\x0b')
    run = b'\x00\x41\xe4\x00\x10\x00\x0b'                  # call 0 (100)
    write('deep-frames.wasm',
          module([b'\x60\x01\x7f\x00', VOID], [0, 1], [recurse, run],
                 [(b'kernel_run', 0, 1), (b'memory', 2, 0)], memory=b'\x00\x01'))


def inputs():
    dump = lambda v: json.dumps(v) + '\n'
    # a "serialized" message is not size-checked: 5,000 bytes, which read_input cuts to 4,096
    write('big-message.inputs.json', dump([[{'serialized': '01' + 'ab' * 4999}]]))
    # 4,096 bytes at most per inbox message: 1 tag byte + 4,096
    write('message-4097.inputs.json', dump([[{'external': '00' * 4096}]]))
    # Michelson payloads (vm/michelson.c): integers, annotations and nesting
    write('int-10001.inputs.json', dump([[{'payload': '1' * 10001}]]))
    write('annot-256.inputs.json', dump([[{'payload': 'Pair %' + 'a' * 255 + ' 0 0'}]]))
    write('depth-2049.inputs.json', dump([[{'payload': '{' * 2049 + '}' * 2049}]]))
    # base58 text (vm/base58.c): 200 characters at most
    write('address-201.inputs.json', dump([[{'payload': '0', 'sender': 'KT1' + '1' * 198}]]))
    # installer config: a durable key of 241 bytes
    write('key-241.installer.json',
          dump({'instructions': [{'set': {'value': '00', 'to': '/' + 'a' * 240}}]}))


def traces():
    magic = b'WDTRACE\n' + uleb(1)
    # profiler/trace.c: MAX_META, MAX_STRING, MAX_KINDS, MAX_PAYLOAD
    write('meta-4097.trace', magic + uleb(4097))
    write('string-65537.trace', magic + uleb(1) + uleb(65537))
    write('kinds-1025.trace', magic + uleb(0) + uleb(1025))
    write('event-1048577.trace', magic + uleb(0) + uleb(0) + uleb(0) + uleb(0) + uleb(1 << 20 | 1))


def big(out):
    """Too large to commit: made by tests/golden/run.sh into its scratch directory."""
    # a br_table target 21,845 labels out: reaching it costs 65,539 ticks under pvm, past the
    # 65,535 a branch's edge holds (decode/translate.c EDGE_MAX)
    depth = 21845
    body = b'\x00' + b'\x02\x40' * depth + b'\x41\x00\x0e' + vec([uleb(depth - 1)]) + \
        uleb(0) + b'\x0b' * (depth + 1)
    with open(os.path.join(out, 'br-table-depth.wasm'), 'wb') as f:
        f.write(module([VOID], [0], [body], [(b'f', 0, 0)]))


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--big':
        big(sys.argv[2])
    else:
        modules()
        inputs()
        traces()
