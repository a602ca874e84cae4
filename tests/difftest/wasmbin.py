"""wasmbin.py: the little of the WebAssembly binary format the differential test needs
(tests/difftest/modules.py): the sections, function types, imports and exports of a
module, and three rewrites of it.

- prepare(): binaryen's logging imports (fuzzing-support log-i32/i64/f32/f64) become the
  spec tests' spectest print_i32/i64/f32/f64 (same types, do-nothing functions in all
  three engines), and memory 0 is exported (as "__memory") when it is not, so that node
  can read it.
- interp_driver(): for wabt's wasm-interp, which calls only exports without parameters
  and prints floats with 6 decimals: a copy of a module whose exports are `run` (the
  export under test called with zero arguments, its float results returned as their bit
  patterns, references as ref.is_null), `memsize` (memory 0's pages) and `memhash` (the
  FNV-1a hash of memory 0's bytes, as `wasmdbg invoke --memory-hash` computes it).

Only what WebAssembly 2.0 without SIMD has is read; anything else raises Unsupported.
Functions and types are only ever appended, so no index in the module moves.
"""

I32, I64, F32, F64, V128, FUNCREF, EXTERNREF = 0x7F, 0x7E, 0x7D, 0x7C, 0x7B, 0x70, 0x6F
TYPE_NAMES = {I32: 'i32', I64: 'i64', F32: 'f32', F64: 'f64', V128: 'v128',
              FUNCREF: 'funcref', EXTERNREF: 'externref'}
SEC_TYPE, SEC_IMPORT, SEC_FUNC, SEC_EXPORT, SEC_CODE = 1, 2, 3, 7, 10
# Where each known section goes (custom sections, id 0, stay where they are).
SECTION_ORDER = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 10, 11]
# binaryen's fuzzing-support imports and the spectest functions of the same types.
LOG_IMPORTS = {'log-i32': ('print_i32', I32), 'log-i64': ('print_i64', I64),
               'log-f32': ('print_f32', F32), 'log-f64': ('print_f64', F64)}


class Unsupported(Exception):
    pass


def uleb(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def sleb(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if (n == 0 and not b & 0x40) or (n == -1 and b & 0x40):
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def name_bytes(s):
    b = s.encode()
    return uleb(len(b)) + b


class Reader:
    def __init__(self, data, pos=0):
        self.data = data
        self.pos = pos

    def byte(self):
        if self.pos >= len(self.data):
            raise Unsupported('unexpected end')
        b = self.data[self.pos]
        self.pos += 1
        return b

    def uleb(self):
        n = shift = 0
        while True:
            b = self.byte()
            n |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return n

    def bytes(self, n):
        if self.pos + n > len(self.data):
            raise Unsupported('unexpected end')
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def name(self):
        return self.bytes(self.uleb()).decode('utf-8', 'replace')

    def valtype(self):
        t = self.byte()
        if t not in TYPE_NAMES:
            raise Unsupported('value type 0x%02x' % t)
        return t

    def limits(self):
        flags = self.byte()
        if flags not in (0, 1):
            raise Unsupported('limits flags 0x%02x' % flags)
        lo = self.uleb()
        return (lo, self.uleb() if flags == 1 else None)


class Module:
    """The sections of a binary as (id, payload), with the parts read that rewrites use."""

    def __init__(self, data):
        if data[:8] != b'\0asm\1\0\0\0':
            raise Unsupported('not a WebAssembly 1.0 binary')
        self.sections = []
        r = Reader(data, 8)
        while r.pos < len(data):
            sid = r.byte()
            self.sections.append([sid, bytes(r.bytes(r.uleb()))])
        self.types = []    # [(params, results)]
        self.imports = []  # [(module, name, kind, desc)]; desc: type idx for functions
        self.funcs = []    # type index of each function, imports first
        self.memories = 0  # imported and defined
        self.exports = []  # [(name, kind, idx)]
        for sid, payload in self.sections:
            r = Reader(payload)
            if sid == SEC_TYPE:
                for _ in range(r.uleb()):
                    if r.byte() != 0x60:
                        raise Unsupported('a type that is not a function type')
                    params = [r.valtype() for _ in range(r.uleb())]
                    self.types.append((params, [r.valtype() for _ in range(r.uleb())]))
            elif sid == SEC_IMPORT:
                for _ in range(r.uleb()):
                    mod, name, kind = r.name(), r.name(), r.byte()
                    if kind == 0:
                        desc = r.uleb()
                        self.funcs.append(desc)
                    elif kind == 1:
                        desc = (r.valtype(), r.limits())
                    elif kind == 2:
                        desc = r.limits()
                        self.memories += 1
                    elif kind == 3:
                        desc = (r.valtype(), r.byte())
                    else:
                        raise Unsupported('import kind %d' % kind)
                    self.imports.append((mod, name, kind, desc))
            elif sid == SEC_FUNC:
                self.funcs += [r.uleb() for _ in range(r.uleb())]
            elif sid == 5:
                self.memories += r.uleb()
            elif sid == SEC_EXPORT:
                for _ in range(r.uleb()):
                    name, kind = r.name(), r.byte()
                    self.exports.append((name, kind, r.uleb()))

    def func_exports(self):
        """[(name, params, results)] of the exported functions, in export order."""
        return [(name,) + self.types[self.funcs[idx]]
                for name, kind, idx in self.exports if kind == 0]

    def payload(self, sid):
        for s in self.sections:
            if s[0] == sid:
                return s[1]
        return None

    def set_payload(self, sid, payload):
        for s in self.sections:
            if s[0] == sid:
                s[1] = payload
                return
        rank = SECTION_ORDER.index(sid)
        at = len(self.sections)
        for i, (other, _) in enumerate(self.sections):
            if other != 0 and SECTION_ORDER.index(other) > rank:
                at = i
                break
        self.sections.insert(at, [sid, payload])

    def encode(self):
        out = bytearray(b'\0asm\1\0\0\0')
        for sid, payload in self.sections:
            out += bytes([sid]) + uleb(len(payload)) + payload
        return bytes(out)


def vec(items):
    return uleb(len(items)) + b''.join(items)


def encode_imports(imports):
    items = []
    for mod, name, kind, desc in imports:
        b = name_bytes(mod) + name_bytes(name) + bytes([kind])
        if kind == 0:
            b += uleb(desc)
        elif kind == 1:
            b += bytes([desc[0]]) + encode_limits(desc[1])
        elif kind == 2:
            b += encode_limits(desc)
        else:
            b += bytes(desc)
        items.append(b)
    return vec(items)


def encode_limits(limits):
    lo, hi = limits
    return b'\0' + uleb(lo) if hi is None else b'\1' + uleb(lo) + uleb(hi)


def encode_exports(exports):
    return vec([name_bytes(n) + bytes([k]) + uleb(i) for n, k, i in exports])


def prepare(data):
    """The module every engine runs: binaryen's logging imports renamed to spectest's
    print functions and memory 0 exported. Raises Unsupported for any other import."""
    m = Module(data)
    imports = []
    for mod, name, kind, desc in m.imports:
        if mod == 'fuzzing-support' and name in LOG_IMPORTS and kind == 0:
            new, t = LOG_IMPORTS[name]
            if m.types[desc] != ([t], []):
                raise Unsupported('import %s.%s of an unexpected type' % (mod, name))
            imports.append(('spectest', new, kind, desc))
        else:
            raise Unsupported('import %s.%s' % (mod, name))
    if m.imports:
        m.set_payload(SEC_IMPORT, encode_imports(imports))
    if m.memories and not any(k == 2 and i == 0 for _, k, i in m.exports):
        m.exports.append(('__memory', 2, 0))
        m.set_payload(SEC_EXPORT, encode_exports(m.exports))
    return m.encode()


ZERO = {I32: b'\x41\x00', I64: b'\x42\x00', F32: b'\x43' + bytes(4), F64: b'\x44' + bytes(8),
        FUNCREF: b'\xd0\x70', EXTERNREF: b'\xd0\x6f'}
# What `run` returns for each result type, and the instruction that converts it.
DRIVER_RESULT = {I32: (I32, b''), I64: (I64, b''), F32: (I32, b'\xbc'), F64: (I64, b'\xbd'),
                 FUNCREF: (I32, b'\xd1'), EXTERNREF: (I32, b'\xd1')}


def body(locals_, code):
    """A code section entry: locals as [(count, type)], then the instructions and end."""
    b = vec([uleb(n) + bytes([t]) for n, t in locals_]) + code + b'\x0b'
    return uleb(len(b)) + b


FNV_BASIS, FNV_PRIME = 0x811C9DC5, 0x01000193


def i32c(n):
    """i32.const n, n taken modulo 2^32."""
    n &= 0xFFFFFFFF
    return b'\x41' + sleb(n - (1 << 32) if n >= 1 << 31 else n)


def memhash_code(has_memory):
    """FNV-1a over every byte of memory 0, as `wasmdbg invoke --memory-hash` computes it,
    skipping zeros: XOR with a zero byte changes nothing, so 64 zero bytes are one
    multiplication by the prime's 64th power, 8 by its 8th (wasm-interp hashes 16 pages in
    a few milliseconds so, 36 ms 8 bytes at a time). Locals: 0 address, 1 size in bytes,
    2 hash, 3 word (i64), 4 bytes left in the word, 5 end of the 64-byte chunk."""
    if not has_memory:
        return i32c(0)
    any_nonzero = b'\x20\x00\x29\x03\x00' + b''.join(
        b'\x20\x00\x29\x03' + uleb(8 * k) + b'\x84' for k in range(1, 8))
    return (i32c(FNV_BASIS) + b'\x21\x02'                       # h = offset basis
            + b'\x3f\x00\x41\x10\x74\x21\x01'                     # n = pages << 16
            + b'\x02\x40\x03\x40'                                  # block, loop chunks
            + b'\x20\x00\x20\x01\x4f\x0d\x01'                      # br_if 1 (i >= n)
            + any_nonzero + b'\x50\x04\x40'                         # if the 64 are zero
            + b'\x20\x02' + i32c(FNV_PRIME ** 64) + b'\x6c\x21\x02'  # h *= prime^64
            + b'\x20\x00' + i32c(64) + b'\x6a\x21\x00'              # i += 64
            + b'\x05\x20\x00' + i32c(64) + b'\x6a\x21\x05'          # else e = i + 64
            + b'\x03\x40\x20\x00\x29\x03\x00\x22\x03'              # loop: w = load(i)
            + b'\x50\x04\x40'                                      # if w == 0
            + b'\x20\x02' + i32c(FNV_PRIME ** 8) + b'\x6c\x21\x02'   # h *= prime^8
            + b'\x05' + i32c(8) + b'\x21\x04\x03\x40'                # else k = 8; loop
            + b'\x20\x02\x20\x03\xa7' + i32c(0xFF) + b'\x71\x73'    # h ^ (w & 0xff)
            + i32c(FNV_PRIME) + b'\x6c\x21\x02'                      # * prime
            + b'\x20\x03\x42\x08\x88\x21\x03'                      # w >>= 8
            + b'\x20\x04' + i32c(1) + b'\x6b\x22\x04\x0d\x00'        # br_if 0 (--k)
            + b'\x0b\x0b'                                           # end loop, end if
            + b'\x20\x00' + i32c(8) + b'\x6a\x22\x00'                # i += 8
            + b'\x20\x05\x49\x0d\x00\x0b\x0b'                      # br_if 0 (i < e)
            + b'\x0c\x00\x0b\x0b'                                  # br 0 (chunks) end
            + b'\x20\x02')


def interp_driver(data, export):
    """A copy of the prepared module `data` for wasm-interp --run-all-exports: exports
    `run` (EXPORT with zero arguments), `memsize` and `memhash` (see the top)."""
    m = Module(data)
    idx = next(i for n, k, i in m.exports if k == 0 and n == export)
    params, results = m.types[m.funcs[idx]]
    if V128 in params or V128 in results:
        raise Unsupported('v128 in the signature of %s' % export)
    ntypes = len(m.types)
    run_results = [DRIVER_RESULT[t][0] for t in results]
    new_types = [([], run_results), ([], [I32])]
    m.set_payload(SEC_TYPE, vec([b'\x60' + vec([bytes([t]) for t in p]) +
                                 vec([bytes([t]) for t in r])
                                 for p, r in m.types + new_types]))
    nfuncs = len(m.funcs)
    defined = len(m.funcs) - sum(1 for i in m.imports if i[2] == 0)
    fsec = m.payload(SEC_FUNC)
    entries = Reader(fsec).uleb() if fsec else 0
    assert entries == defined
    old = fsec[len(uleb(entries)):] if fsec else b''
    m.set_payload(SEC_FUNC, uleb(defined + 3) + old + uleb(ntypes) + uleb(ntypes + 1) * 2)
    run = b''.join(ZERO[t] for t in params) + b'\x10' + uleb(idx)
    run += b''.join(b'\x21' + uleb(i) for i in reversed(range(len(results))))
    run += b''.join(b'\x20' + uleb(i) + DRIVER_RESULT[t][1] for i, t in enumerate(results))
    csec = m.payload(SEC_CODE)
    centries = Reader(csec).uleb() if csec else 0
    old = csec[len(uleb(centries)):] if csec else b''
    has_memory = m.memories > 0
    m.set_payload(SEC_CODE, uleb(centries + 3) + old
                  + body([(1, t) for t in results], run)
                  + body([], b'\x3f\x00' if has_memory else b'\x41\x7f')
                  + body([(3, I32), (1, I64), (2, I32)], memhash_code(has_memory)))
    m.set_payload(SEC_EXPORT, encode_exports([('run', 0, nfuncs), ('memsize', 0, nfuncs + 1),
                                              ('memhash', 0, nfuncs + 2)]))
    return m.encode()
