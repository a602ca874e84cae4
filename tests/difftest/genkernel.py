"""genkernel.py: random PVM kernels for the differential test of wasmdbg's ticks against
the Octez tick model (tests/difftest/kernels.py; README.md beside it).

kernel(rng) returns (wat text, inputs, options): a module exporting memory "mem" and
kernel_run, made of random functions over i32 and i64 (WebAssembly has no floats in a
kernel), within what the model covers (tests/octez/README.md): no table, ref, memory.init,
data.drop or elem.drop instruction, no start function, none of store_get_nth_key,
store_create, __internal_store_get_hash, reveal_preimage, reveal or nds_* called.

What a kernel exercises: every integer instruction (some trapping: division by zero,
overflow, out-of-bounds loads and stores), locals, globals, blocks, loops, ifs with and
without else, block parameters and multiple results, br, br_if (also with values below it
on its label's stack), br_table, return, calls with parameters, locals and several results,
recursion, call_indirect (with wrong types and missing elements), memory.size, grow, fill
and copy, host functions with valid and invalid keys and pointers, reboots, a small period
(too many ticks) and every PVM version. Values flow into a checksum that kernel_run writes
to the outbox, so the comparison checks them too.

Every loop runs a bounded number of times (a counter local, its only back edge), and every
function entry spends one unit of a fuel global (none left: it returns zeros), so a
kernel always ends. A `return` only ever sits where its label's own stack holds exactly
the function's results: the Octez PVM handles a `return` with values below them its own
way (the "return garbage" quirk, docs/ticks.md), which wasmdbg warns about and does not
model.
"""

VERSIONS = ['2.0.0', '2.0.0-r1', '2.0.0-r2', '2.0.0-r3', '2.0.0-r4', '2.0.0-r5', '2.0.0-r6']
# smart_rollup_core functions used: (params, results, first version: 0 = 2.0.0, n = rn)
HOST = {
    'read_input': ('i32 i32 i32', 'i32', 0),
    'write_output': ('i32 i32', 'i32', 0),
    'write_debug': ('i32 i32', '', 0),
    'store_has': ('i32 i32', 'i32', 0),
    'store_list_size': ('i32 i32', 'i64', 0),
    'store_delete': ('i32 i32', 'i32', 0),
    'store_delete_value': ('i32 i32', 'i32', 1),
    'store_copy': ('i32 i32 i32 i32', 'i32', 0),
    'store_move': ('i32 i32 i32 i32', 'i32', 0),
    'store_value_size': ('i32 i32', 'i32', 0),
    'store_read': ('i32 i32 i32 i32 i32', 'i32', 0),
    'store_write': ('i32 i32 i32 i32 i32', 'i32', 0),
    'store_exists': ('i32 i32', 'i32', 2),
    'reveal_metadata': ('i32 i32', 'i32', 0),
}
# Durable keys, placed at KEYS_AT: valid ones, a read-only one, invalid ones.
KEYS = ['/a', '/b', '/b/c', '/b/d', '/e/f/g', '/readonly/kernel/env/reboot_counter',
        '/kernel/x', 'nope', '/a//b', '/' + 'k' * 70, '/a/b/c/d/e/f/g/h/i/j/k', '/' + 'l' * 260]
KEYS_AT = 0x8000
SCRATCH = 0x9000      # read_input's level and counter, reveal_metadata's result
INBUF = 0x9100        # read_input's destination
OUT_AT = 0x9800       # the checksum written to the outbox
MASK = 0xFFF          # most memory operands stay below 4 KiB (+ offset)

UNARY32 = ['i32.clz', 'i32.ctz', 'i32.popcnt', 'i32.extend8_s', 'i32.extend16_s', 'i32.eqz']
UNARY64 = ['i64.clz', 'i64.ctz', 'i64.popcnt', 'i64.extend8_s', 'i64.extend16_s',
           'i64.extend32_s']
BINARY = ['add', 'sub', 'mul', 'and', 'or', 'xor', 'shl', 'shr_s', 'shr_u', 'rotl', 'rotr']
DIVS = ['div_s', 'div_u', 'rem_s', 'rem_u']
COMPARE = ['eq', 'ne', 'lt_s', 'lt_u', 'gt_s', 'gt_u', 'le_s', 'le_u', 'ge_s', 'ge_u']
LOADS = {'i32': ['i32.load', 'i32.load8_s', 'i32.load8_u', 'i32.load16_s', 'i32.load16_u'],
         'i64': ['i64.load', 'i64.load8_s', 'i64.load8_u', 'i64.load16_s', 'i64.load16_u',
                 'i64.load32_s', 'i64.load32_u']}
STORES = {'i32': ['i32.store', 'i32.store8', 'i32.store16'],
          'i64': ['i64.store', 'i64.store8', 'i64.store16', 'i64.store32']}
CONSTS32 = [0, 1, -1, 2, 3, 7, 31, 32, 63, 64, 255, 256, 0xFFFF, 0x7FFFFFFF, -0x80000000, 4096]
CONSTS64 = [0, 1, -1, 2, 63, 64, 0xFFFFFFFF, 0x7FFFFFFFFFFFFFFF, -0x8000000000000000,
            0x100000000]


class Sig:
    def __init__(self, name, params, results):
        self.name, self.params, self.results = name, params, results

    def text(self):
        p = ' (param %s)' % ' '.join(self.params) if self.params else ''
        r = ' (result %s)' % ' '.join(self.results) if self.results else ''
        return p + r


class Label:
    def __init__(self, kind, name, target):
        self.kind, self.name, self.target = kind, name, target


class Body:
    """One function body being generated: flat instructions, one per line."""

    def __init__(self, g, sig, budget):
        self.g, self.sig, self.rng = g, sig, g.rng
        self.lines = []
        self.locals = list(sig.params)  # value locals, params first
        self.counters = []              # loop counters: indices of i32 locals
        self.labels = [Label('func', None, sig.results)]
        self.budget = budget
        self.indent = 1
        for _ in range(self.rng.choice([0, 1, 2, 4, 4, 12, 30])):
            self.locals.append(self.rng.choice(['i32', 'i64']))

    def emit(self, text):
        self.lines.append('  ' * self.indent + text)
        self.budget -= 1

    def new_local(self, t):
        self.locals.append(t)
        return len(self.locals) - 1

    def local_of(self, t):
        idx = [i for i, lt in enumerate(self.locals) if lt == t and i not in self.counters]
        return self.rng.choice(idx) if idx else self.new_local(t)

    def label(self, kind, target):
        self.g.label_count += 1
        lb = Label(kind, '$l%d' % self.g.label_count, target)
        self.labels.append(lb)
        return lb

    def depth(self, lb):
        return len(self.labels) - 1 - self.labels.index(lb)

    def ref(self, lb):
        return lb.name if lb.name else str(self.depth(lb))

    def exits(self, types=None):
        """Labels a branch may target (never a loop: its only back edge is the counter's)."""
        return [lb for lb in self.labels if lb.kind != 'loop' and
                (types is None or lb.target == types)]

    # ---- expressions: code that pushes one value of type t ----

    def expr(self, t, depth=0):
        r = self.rng
        if depth > 4 or self.budget <= 0:
            return self.leaf(t)
        choice = r.choices(
            ['leaf', 'unary', 'binary', 'div', 'compare', 'convert', 'load', 'tee', 'select',
             'block', 'if', 'call', 'call_indirect', 'host', 'br_if', 'memory'],
            [6, 3, 8, 1, 3, 2, 3, 1, 1, 1, 1, 2, 1, 1, 1, 1])[0]
        if choice == 'unary':
            self.expr(t, depth + 1)
            self.emit(r.choice(UNARY32 if t == 'i32' else UNARY64))
        elif choice == 'binary':
            self.expr(t, depth + 1)
            self.expr(t, depth + 1)
            self.emit('%s.%s' % (t, r.choice(BINARY)))
        elif choice == 'div':
            self.expr(t, depth + 1)
            self.expr(t, depth + 1)
            if r.random() < 0.8:  # mostly not by zero
                self.emit('%s.const 1' % t)
                self.emit('%s.or' % t)
            self.emit('%s.%s' % (t, r.choice(DIVS)))
        elif choice == 'compare' and t == 'i32':
            u = r.choice(['i32', 'i64'])
            if r.random() < 0.2:
                self.expr(u, depth + 1)
                self.emit('%s.eqz' % u)
            else:
                self.expr(u, depth + 1)
                self.expr(u, depth + 1)
                self.emit('%s.%s' % (u, r.choice(COMPARE)))
        elif choice == 'convert':
            if t == 'i32':
                self.expr('i64', depth + 1)
                self.emit('i32.wrap_i64')
            else:
                self.expr('i32', depth + 1)
                self.emit(r.choice(['i64.extend_i32_s', 'i64.extend_i32_u']))
        elif choice == 'load':
            self.address(depth)
            self.emit('%s offset=%d' % (r.choice(LOADS[t]), r.choice([0, 0, 1, 4, 8, 63])))
        elif choice == 'tee':
            self.expr(t, depth + 1)
            self.emit('local.tee %d' % self.local_of(t))
        elif choice == 'select':
            self.expr(t, depth + 1)
            self.expr(t, depth + 1)
            self.expr('i32', depth + 1)
            self.emit(r.choice(['select', 'select (result %s)' % t]))
        elif choice == 'block':
            self.block([], [t], depth)
        elif choice == 'if':
            self.if_([t], depth)
        elif choice == 'call' and self.call_to(lambda s: s.results == [t], depth):
            pass
        elif choice == 'call_indirect' and self.call_indirect([t], depth):
            pass
        elif choice == 'host' and t == 'i32':
            self.host_call(depth)
        elif choice == 'host' and t == 'i64' and self.g.can('store_list_size'):
            self.g.use('store_list_size')
            self.key()
            self.emit('call $store_list_size')
        elif choice == 'br_if' and self.exits([t]):
            # br_if with a value: whatever this label's stack holds below it is H
            lb = r.choice(self.exits([t]))
            self.expr(t, depth + 1)
            self.cond(depth)
            self.emit('br_if %s' % self.ref(lb))
        elif choice == 'memory' and t == 'i32':
            if r.random() < 0.5:
                self.emit('memory.size')
            else:
                self.expr('i32', depth + 1)
                self.emit('i32.const 1')
                self.emit('i32.and')
                self.emit('memory.grow')
        else:
            self.leaf(t)

    def leaf(self, t):
        r = self.rng
        c = r.random()
        if c < 0.45:
            if t == 'i32':
                v = r.choice(CONSTS32) if r.random() < 0.6 else r.randint(-2**31, 2**31 - 1)
            else:
                v = r.choice(CONSTS64) if r.random() < 0.6 else r.randint(-2**63, 2**63 - 1)
            self.emit('%s.const %d' % (t, v))
        elif c < 0.85:
            self.emit('local.get %d' % self.local_of(t))
        else:
            self.emit('global.get %s' % self.g.global_of(t, mutable=r.random() < 0.7))

    def cond(self, depth):
        """An i32 condition, true about half the time."""
        self.expr('i32', depth + 1)
        self.emit('i32.const %d' % self.rng.choice([1, 2, 4, 8]))
        self.emit('i32.and')

    def address(self, depth):
        self.expr('i32', depth + 1)
        if self.rng.random() < 0.95:
            self.emit('i32.const %d' % MASK)
            self.emit('i32.and')

    def values(self, types, depth):
        for t in types:
            self.expr(t, depth + 1)

    # ---- structured code ----

    def block(self, params, results, depth):
        self.values(params, depth)
        lb = self.label('block', results)
        self.emit('block %s%s' % (lb.name, Sig('', params, results).text()))
        self.indent += 1
        self.take_params(params)
        self.stmts(depth + 1, self.rng.randint(0, 4))
        self.values(results, depth)
        self.indent -= 1
        self.emit('end')
        self.labels.pop()

    def take_params(self, params):
        for t in reversed(params):
            self.emit('local.set %d' % self.local_of(t))

    def if_(self, results, depth, params=()):
        """An if, with an else unless it may go without (its params are its results)."""
        params = list(params)
        self.values(params, depth)
        self.cond(depth)
        lb = self.label('if', results)
        self.emit('if %s%s' % (lb.name, Sig('', params, results).text()))
        self.indent += 1
        self.take_params(params)
        self.stmts(depth + 1, self.rng.randint(0, 3))
        self.values(results, depth)
        if params != results or self.rng.random() < 0.6:
            self.indent -= 1
            self.emit('else')
            self.indent += 1
            self.take_params(params)
            self.stmts(depth + 1, self.rng.randint(0, 3))
            self.values(results, depth)
        self.indent -= 1
        self.emit('end')
        self.labels.pop()

    def loop(self, depth):
        """A loop run 1 to 4 times, maybe with parameters and results."""
        r = self.rng
        params = [r.choice(['i32', 'i64']) for _ in range(r.choice([0, 0, 0, 1, 2]))]
        results = [r.choice(['i32', 'i64']) for _ in range(r.choice([0, 0, 1]))]
        counter = self.new_local('i32')
        self.counters.append(counter)
        self.emit('i32.const %d' % r.randint(1, 4))
        self.emit('local.set %d' % counter)
        self.values(params, depth)
        lb = self.label('loop', params)
        self.emit('loop %s%s' % (lb.name, Sig('', params, results).text()))
        self.indent += 1
        self.take_params(params)
        self.stmts(depth + 1, r.randint(1, 4))
        self.values(params, depth)
        self.emit('local.get %d' % counter)
        self.emit('i32.const 1')
        self.emit('i32.sub')
        self.emit('local.tee %d' % counter)
        self.emit('br_if %s' % lb.name)
        self.take_params(params)
        self.values(results, depth)
        self.indent -= 1
        self.emit('end')
        self.labels.pop()
        self.consume(results)

    def consume(self, types):
        for t in reversed(types):
            if self.rng.random() < 0.5:
                self.emit('drop')
            else:
                self.emit('local.set %d' % self.local_of(t))

    def call_to(self, want, depth):
        cands = [s for s in self.g.funcs if want(s)]
        if not cands:
            return False
        s = self.rng.choice(cands)
        self.values(s.params, depth)
        self.emit('call %s' % s.name)
        return True

    def call_indirect(self, results, depth):
        cands = [s for s in self.g.table_types if s.results == results]
        if not cands:
            return False
        s = self.rng.choice(cands)
        self.values(s.params, depth)
        self.expr('i32', depth + 1)
        if self.rng.random() < 0.9:
            self.emit('i32.const %d' % (self.g.table_size - 1))
            self.emit('i32.and')
        self.emit('call_indirect (type %s)' % self.g.type_name(s))
        return True

    def key(self):
        k = self.rng.choice(self.g.keys) if self.rng.random() < 0.9 else \
            self.rng.choice(list(self.g.key_at))
        self.emit('i32.const %d' % self.g.key_at[k])
        self.emit('i32.const %d' % len(k))

    def pointer(self, depth, size=64):
        """An address and a length (mostly in bounds)."""
        if self.rng.random() < 0.9:
            self.emit('i32.const %d' % self.rng.randrange(0, 0x800))
            self.emit('i32.const %d' % self.rng.randrange(0, size))
        else:
            self.expr('i32', depth + 1)
            self.expr('i32', depth + 1)

    def host_call(self, depth):
        """A host function returning i32."""
        r = self.rng
        names = [n for n in ('store_has', 'store_delete', 'store_delete_value', 'store_copy',
                             'store_move', 'store_value_size', 'store_read', 'store_write',
                             'store_exists', 'write_output', 'read_input', 'reveal_metadata')
                 if self.g.can(n)]
        n = r.choice(names)
        self.g.use(n)
        if n in ('store_has', 'store_delete', 'store_delete_value', 'store_value_size',
                 'store_exists'):
            self.key()
        elif n in ('store_copy', 'store_move'):
            self.key()
            self.key()
        elif n == 'store_read':
            self.key()
            self.emit('i32.const %d' % r.choice([0, 0, 1, 3, 100]))
            self.pointer(depth)
        elif n == 'store_write':
            self.key()
            self.emit('i32.const %d' % r.choice([0, 0, 0, 2, 5]))
            self.pointer(depth)
        elif n == 'write_output':
            self.pointer(depth)
        elif n == 'read_input':
            self.emit('i32.const %d' % SCRATCH)
            self.emit('i32.const %d' % INBUF)
            self.emit('i32.const %d' % r.choice([0, 1, 16, 4096]))
        else:
            self.emit('i32.const %d' % SCRATCH)
            self.emit('i32.const %d' % r.choice([0, 10, 24, 100]))
        self.emit('call $%s' % n)

    # ---- statements: code that leaves the stack as it found it ----

    def stmts(self, depth, count):
        for _ in range(count):
            if self.budget <= 0:
                return
            if self.stmt(depth):
                return  # an unconditional branch ends the list

    def stmt(self, depth):
        """One statement; True when it was an unconditional transfer (br, return, ...)."""
        r = self.rng
        choice = r.choices(
            ['set', 'global', 'store', 'mix', 'drop', 'block', 'multi', 'loop', 'if', 'call',
             'host', 'debug', 'bulk', 'br_if', 'br_table', 'br', 'return', 'unreachable'],
            [5, 2, 4, 4, 1, 2, 1, 2, 2, 3, 2, 1, 1, 2, 1, 1, 1, 0.15])[0]
        if depth > 5 and choice in ('block', 'multi', 'loop', 'if'):
            choice = 'mix'
        t = r.choice(['i32', 'i64'])
        if choice == 'set':
            self.expr(t, depth)
            self.emit('local.set %d' % self.local_of(t))
        elif choice == 'global':
            self.expr(t, depth)
            self.emit('global.set %s' % self.g.global_of(t, mutable=True))
        elif choice == 'store':
            self.address(depth)
            self.expr(t, depth)
            self.emit('%s offset=%d' % (r.choice(STORES[t]), r.choice([0, 0, 2, 8, 100])))
        elif choice == 'mix':
            self.mix(t, depth)
        elif choice == 'drop':
            self.expr(t, depth)
            self.emit('drop')
        elif choice == 'block':
            self.block([], [], depth)
        elif choice == 'multi':
            params = [r.choice(['i32', 'i64']) for _ in range(r.randint(0, 2))]
            results = [r.choice(['i32', 'i64']) for _ in range(r.randint(1, 3))]
            self.block(params, results, depth)
            self.consume(results)
        elif choice == 'loop':
            self.loop(depth)
        elif choice == 'if':
            if r.random() < 0.7:
                self.if_([], depth)
            else:  # parameters, results, maybe no else
                params = [r.choice(['i32', 'i64']) for _ in range(r.randint(1, 2))]
                results = list(params) if r.random() < 0.5 else [r.choice(['i32', 'i64'])]
                self.if_(results, depth, params)
                self.consume(results)
        elif choice == 'call':
            if r.random() < 0.3 and self.g.table_types:
                s = r.choice(self.g.table_types)
                self.call_indirect(s.results, depth)
                self.consume(s.results)
            elif self.call_to(lambda s: True, depth):
                self.consume(self.g.last_called(self))
        elif choice == 'host':
            self.host_call(depth)
            self.emit('drop')
        elif choice == 'debug':
            self.g.use('write_debug')
            self.pointer(depth, 32)
            self.emit('call $write_debug')
        elif choice == 'bulk':
            self.address(depth)
            if r.random() < 0.5:
                self.expr('i32', depth)
            else:
                self.address(depth)
            self.expr('i32', depth)
            self.emit('i32.const %d' % r.choice([7, 63, 255]))
            self.emit('i32.and')
            self.emit(r.choice(['memory.fill', 'memory.copy']))
        elif choice == 'br_if':
            lb = r.choice(self.exits())
            self.values(lb.target, depth)
            self.cond(depth)
            self.emit('br_if %s' % self.ref(lb))
            self.consume(lb.target)
        elif choice == 'br_table':
            lb = r.choice(self.exits())
            same = self.exits(lb.target)
            self.values(lb.target, depth)
            self.expr('i32', depth)
            targets = [self.ref(r.choice(same)) for _ in range(r.randint(0, 4))]
            self.emit('br_table %s' % ' '.join(targets + [self.ref(lb)]))
            return True
        elif choice == 'br':
            lb = r.choice(self.exits())
            self.values(lb.target, depth)
            self.emit('br %s' % self.ref(lb))
            return True
        elif choice == 'return':
            self.values(self.sig.results, depth)
            self.emit('return')
            return True
        elif choice == 'unreachable':
            self.emit('unreachable')
            return True
        return False

    def mix(self, t, depth):
        """$acc = $acc * 31 + value: values reach the outbox."""
        self.emit('global.get $acc')
        self.emit('i64.const 31')
        self.emit('i64.mul')
        self.expr(t, depth)
        if t == 'i32':
            self.emit('i64.extend_i32_u')
        self.emit('i64.add')
        self.emit('global.set $acc')


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.label_count = 0
        self.version = rng.choice(VERSIONS) if rng.random() < 0.3 else VERSIONS[-1]
        self.vidx = VERSIONS.index(self.version)
        self.imports = []
        self.globals = []  # (name, type, mutable)
        for i in range(rng.randint(1, 5)):
            t = rng.choice(['i32', 'i64'])
            self.globals.append(('$g%d' % i, t, rng.random() < 0.7, rng.randint(-100, 100)))
        self.keys = rng.sample(KEYS[:7], rng.randint(2, 5))
        self.key_at = {}
        at = KEYS_AT
        for k in KEYS:
            self.key_at[k] = at
            at += (len(k) + 15) & ~15
        n = rng.randint(1, 6)
        self.funcs = []
        for i in range(n):
            params = [rng.choice(['i32', 'i64']) for _ in range(rng.choice([0, 1, 1, 2, 3]))]
            results = [rng.choice(['i32', 'i64']) for _ in range(rng.choice([0, 1, 1, 1, 2]))]
            self.funcs.append(Sig('$f%d' % i, params, results))
        self.table = [rng.choice(self.funcs) for _ in range(rng.choice([0, 1, 2, 4, 4, 8]))]
        self.table_size = len(self.table)
        self.table_types = []
        for s in self.table:
            if not any(t.params == s.params and t.results == s.results
                       for t in self.table_types):
                self.table_types.append(s)
        self._last = {}

    def can(self, name):
        return HOST[name][2] <= self.vidx or self.rng.random() < 0.02

    def use(self, name):
        if name not in self.imports:
            self.imports.append(name)

    def global_of(self, t, mutable):
        cands = [g for g in self.globals if g[1] == t and (g[2] or not mutable)]
        if not cands:
            name = '$g%d' % len(self.globals)
            self.globals.append((name, t, True, 0))
            return name
        return self.rng.choice(cands)[0]

    def type_name(self, s):
        return '$t_%s_to_%s' % ('_'.join(s.params) or 'v', '_'.join(s.results) or 'v')

    def last_called(self, body):
        name = body.lines[-1].split()[-1]
        return next(s.results for s in self.funcs if s.name == name)

    def function(self, s):
        body = Body(self, s, self.rng.randint(20, 120))
        # fuel: each call spends one; none left returns zeros
        body.emit('global.get $fuel')
        body.emit('i32.eqz')
        body.emit('if')
        for t in s.results:
            body.emit('%s.const 0' % t)
        body.emit('return')
        body.emit('end')
        body.emit('global.get $fuel')
        body.emit('i32.const 1')
        body.emit('i32.sub')
        body.emit('global.set $fuel')
        body.stmts(0, self.rng.randint(2, 8))
        if body.rng.random() < 0.8 or not s.results:
            body.values(s.results, 0)
        else:
            body.values(s.results, 0)
            body.emit('return')
        return self.func_text(s.name, s.text(), body)

    def func_text(self, name, sig, body, export=''):
        nparams = len(body.sig.params)
        locs = body.locals[nparams:]
        local_text = ' (local %s)' % ' '.join(locs) if locs else ''
        return '(func %s%s%s%s\n%s)' % (name, export, sig, local_text, '\n'.join(body.lines))

    def kernel_run(self):
        r = self.rng
        s = Sig('$kernel_run', [], [])
        body = Body(self, s, r.randint(30, 150))
        body.emit('i32.const %d' % r.choice([5, 20, 50, 100]))
        body.emit('global.set $fuel')
        if r.random() < 0.8:  # read every input, folding sizes and levels into $acc
            self.use('read_input')
            n = body.new_local('i32')
            body.emit('loop $inputs')
            body.emit('  i32.const %d' % SCRATCH)
            body.emit('  i32.const %d' % INBUF)
            body.emit('  i32.const %d' % r.choice([4096, 8, 1]))
            body.emit('  call $read_input')
            body.emit('  local.tee %d' % n)
            body.emit('  i64.extend_i32_s')
            body.emit('  global.get $acc')
            body.emit('  i64.const 31')
            body.emit('  i64.mul')
            body.emit('  i64.add')
            body.emit('  global.set $acc')
            body.emit('  local.get %d' % n)
            body.emit('  i32.const 0')
            body.emit('  i32.gt_s')
            body.emit('  br_if $inputs')
            body.emit('end')
        body.stmts(0, r.randint(3, 10))
        if self.deep is not None:  # recursion near the call depth limit
            body.emit('i32.const %d' % self.deep)
            body.emit('call $deep')
        if r.random() < 0.3:  # one reboot per level: a flag in durable storage
            for n in ('store_has', 'store_write', 'store_delete'):
                self.use(n)
            body.emit('i32.const %d' % self.key_at['/a'])
            body.emit('i32.const 2')
            body.emit('call $store_has')
            body.emit('if')
            body.emit('  i32.const %d' % self.key_at['/a'])
            body.emit('  i32.const 2')
            body.emit('  call $store_delete')
            body.emit('  drop')
            body.emit('else')
            body.emit('  i32.const %d' % self.key_at['/a'])
            body.emit('  i32.const 2')
            body.emit('  i32.const 0')
            body.emit('  i32.const 0')
            body.emit('  i32.const 1')
            body.emit('  call $store_write')
            body.emit('  drop')
            body.emit('  i32.const %d' % self.reboot_at)
            body.emit('  i32.const %d' % len('/kernel/env/reboot'))
            body.emit('  i32.const 0')
            body.emit('  i32.const 0')
            body.emit('  i32.const 0')
            body.emit('  call $store_write')
            body.emit('  drop')
            body.emit('end')
        self.use('write_output')
        if r.random() < 0.05:  # past the outbox's 100 messages a level
            n = body.new_local('i32')
            body.emit('i32.const %d' % r.choice([99, 100, 101, 120]))
            body.emit('local.set %d' % n)
            body.emit('loop $spam')
            body.emit('  i32.const %d' % OUT_AT)
            body.emit('  i32.const %d' % r.choice([0, 3, 4096, 4097]))
            body.emit('  call $write_output')
            body.emit('  drop')
            body.emit('  local.get %d' % n)
            body.emit('  i32.const 1')
            body.emit('  i32.sub')
            body.emit('  local.tee %d' % n)
            body.emit('  br_if $spam')
            body.emit('end')
        body.emit('i32.const %d' % OUT_AT)
        body.emit('global.get $acc')
        body.emit('i64.store')
        body.emit('i32.const %d' % OUT_AT)
        body.emit('i32.const 8')
        body.emit('call $write_output')
        body.emit('drop')
        if r.random() < 0.5:  # and a piece of memory
            body.emit('i32.const %d' % r.randrange(0, 0x800))
            body.emit('i32.const %d' % r.randrange(1, 64))
            body.emit('call $write_output')
            body.emit('drop')
        return self.func_text('$kernel_run', '', body, ' (export "kernel_run")')

    def module(self):
        r = self.rng
        self.reboot_at = KEYS_AT + 0x800
        funcs = [self.function(s) for s in self.funcs]
        # now and then a recursion around the call depth limit: 300 frames in 2.0.0 (the
        # kernel gets 299, kernel_run's included), 60,000 after
        self.deep = None
        if r.random() < 0.06:
            self.deep = r.choice([100, 296, 297, 298, 299, 400, 59996, 59997, 59998, 60000])
            funcs.append('(func $deep (param i32)\n  local.get 0\n  if\n    local.get 0\n'
                         '    i32.const 1\n    i32.sub\n    call $deep\n  end)')
        run = self.kernel_run()
        out = ['(module']
        types = []
        for s in self.table_types:
            types.append('(type %s (func%s))' % (self.type_name(s), s.text()))
        out += types
        for n in self.imports:
            p, res, _ = HOST[n]
            sig = ('(param %s)' % p if p else '') + (' (result %s)' % res if res else '')
            out.append('(import "smart_rollup_core" "%s" (func $%s %s))' % (n, n, sig))
        grow_max = r.choice(['', ' 2', ' 4'])
        out.append('(memory (export "mem") 1%s)' % grow_max)
        if self.table:
            out.append('(table %d funcref)' % self.table_size)
            out.append('(elem (i32.const 0) func %s)' % ' '.join(s.name for s in self.table))
        out.append('(global $fuel (mut i32) (i32.const 0))')
        out.append('(global $acc (mut i64) (i64.const %d))' % r.randint(0, 1000))
        for name, t, mut, v in self.globals:
            out.append('(global %s %s (%s.const %d))' % (
                name, '(mut %s)' % t if mut else t, t, v))
        out += funcs
        out.append(run)
        for k, at in self.key_at.items():
            out.append('(data (i32.const %d) "%s")' % (at, k))
        out.append('(data (i32.const %d) "/kernel/env/reboot")' % self.reboot_at)
        noise = bytes(r.randrange(256) for _ in range(r.randint(0, 64)))
        out.append('(data (i32.const %d) "%s")' % (
            r.randrange(0, 0x800), ''.join('\\%02x' % b for b in noise)))
        return '\n'.join(out) + ')\n'


def inputs(rng):
    levels = []
    for _ in range(rng.randint(1, 3)):
        msgs = []
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            n = rng.choice([0, 1, 4, 20, 100])
            msgs.append({'external': bytes(rng.randrange(256) for _ in range(n)).hex()})
        levels.append(msgs)
    return levels


def kernel(rng):
    """(wat, inputs, args, ticks_per_snapshot) of a random kernel."""
    g = Gen(rng)
    wat = g.module()
    args = [] if g.version == VERSIONS[-1] else ['--pvm-version', g.version]
    tps = None
    c = rng.random()
    if c < 0.1:  # the first run's ticks + 1: it just fits (tests/octez/compare.py)
        tps = 'edge-fit'
    elif c < 0.2:  # its ticks: one too few
        tps = 'edge-late'
    elif c < 0.24:
        tps = rng.choice([2000, 10000, 50000, 200000])
    return wat, inputs(rng), args, tps
