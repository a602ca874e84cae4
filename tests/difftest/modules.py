#!/usr/bin/env python3
"""modules.py: random modules from binaryen run on wasmdbg, wabt's wasm-interp and node
(V8), compared export by export (tests/difftest/README.md says what and why).

  modules.py --wasmdbg PATH --count N [--seed S] [--jobs J] [--out DIR] [--verbose]

Module i of seed S is `wasm-opt -ttf` of bytes drawn from random.Random("S:i"), so
`--seed S --only i` reproduces it. Per module one line when something is wrong:
`FAIL NAME: what differed` (the module and every engine's output are saved under
OUT/mismatch/NAME/) or `skip NAME: why`; `ok NAME` too with --verbose. Then a summary and
`N passed, N failed, N skipped`. Exit status 1 when a module failed.
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import wasmbin  # noqa: E402

# WebAssembly 2.0 without SIMD, what wasmdbg implements (README, DESIGN.md).
FEATURES = ['--mvp-features', '--enable-sign-ext', '--enable-mutable-globals',
            '--enable-nontrapping-float-to-int', '--enable-bulk-memory', '--enable-multivalue']
# binaryen 108 with reference types also emits typed function references ((ref $t),
# ref.as_non_null), which are not WebAssembly 2.0: such modules are invalid, and every
# engine must reject them. One module in REFS_EVERY is generated so, and regenerated (up to
# REFS_TRIES times) until one is valid.
REFS_FEATURES = FEATURES + ['--enable-reference-types']
REFS_EVERY = 5
REFS_TRIES = 12
MAX_TICKS = 1_000_000_000  # wasmdbg invoke's --max-ticks (flat-1): about a second
TIMEOUT = 60

# Trap messages of the three engines, by kind. node's messages are coarser: a kind set.
TRAP_KINDS = [
    (r'^unreachable', {'unreachable'}),
    (r'out of bounds memory access|memory access out of bounds|data segment is out of bounds',
     {'memory'}),
    (r'divide by zero|remainder by zero', {'div0'}),
    (r'^integer overflow|divide result unrepresentable', {'overflow'}),
    (r'^invalid conversion to integer', {'conversion'}),
    (r'float unrepresentable in integer range', {'overflow', 'conversion'}),
    (r'^undefined element|^undefined table index|out of bounds table access|'
     r'table index is out of bounds|table initializer is out of bounds', {'table'}),
    (r'^uninitialized element|^uninitialized table element', {'null'}),
    (r'^indirect call (type|signature) mismatch', {'signature'}),
    (r'null function or function signature mismatch', {'null', 'signature'}),
]


def trap_kinds(message):
    for pattern, kinds in TRAP_KINDS:
        if re.search(pattern, message):
            return kinds
    return {'other: ' + message}


def run(cmd, stdin=None, timeout=TIMEOUT):
    """(returncode or None on timeout, stdout, stderr)."""
    try:
        p = subprocess.run(cmd, input=stdin, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, '', 'timed out after %d s' % timeout
    return p.returncode, p.stdout, p.stderr


# ---- canonical values: i32/i64 signed decimal, floats as bits in hex or "nan", refs ----

def float_bits(text, is32):
    """wasmdbg's f32/f64 text (shortest decimal, inf, nan, -nan:0x1) as canonical form."""
    if 'nan' in text:
        return 'nan'
    v = float(text)
    if is32:
        return hex(struct.unpack('<I', struct.pack('<f', v))[0])
    return hex(struct.unpack('<Q', struct.pack('<d', v))[0])


def canonical_bits(bits, is32):
    """A float's bit pattern (an unsigned integer) in canonical form."""
    exp, frac = ((bits >> 23) & 0xFF, bits & 0x7FFFFF) if is32 else \
        ((bits >> 52) & 0x7FF, bits & 0xFFFFFFFFFFFFF)
    if exp == (0xFF if is32 else 0x7FF) and frac:
        return 'nan'
    return hex(bits)


def signed(v, bits):
    return str(v - (1 << bits) if v >= 1 << (bits - 1) else v)


def parse_wasmdbg(rc, out, err, results):
    """`wasmdbg invoke --memory-hash` output as an outcome dict."""
    lines = out.splitlines()
    res = {'memory': None}
    for ln in lines:
        m = re.match(r'memory: (\d+) pages?, fnv1a32 0x([0-9a-f]+)$', ln)
        if m:
            res['memory'] = [int(m.group(1)), int(m.group(2), 16)]
    if rc is None:
        return dict(res, outcome='timeout', message=err)
    if rc == 0:
        vals = []
        for t, ln in zip(results, lines):
            _, _, v = ln.partition(':')
            if t in ('i32', 'i64'):
                vals.append(str(int(v)))
            elif t in ('f32', 'f64'):
                vals.append(float_bits(v, t == 'f32'))
            else:
                vals.append('null' if v == 'null' else 'nonnull')
        return dict(res, outcome='ok', results=vals)
    first = lines[0] if lines else ''
    if rc == 1 and first.startswith('out of ticks'):
        return dict(res, outcome='limit', message=first)
    if rc == 1 and first.startswith('trap: '):
        msg = re.sub(r'( in .*)? at 0x[0-9a-f]+$', '', first[len('trap: '):])
        if msg.startswith('call stack exhausted'):
            return dict(res, outcome='exhausted', message=msg)
        return dict(res, outcome='trap', message=msg)
    return dict(res, outcome='error', message=(err.strip() or first)[:300])


def parse_interp(rc, out, err, results):
    """wasm-interp --run-all-exports output for interp_driver's module."""
    res = {'memory': None}
    found = {}
    for ln in out.splitlines():
        m = re.match(r'(run|memsize|memhash)\(\) =>\s?(.*)$', ln)
        if m:
            found[m.group(1)] = m.group(2)
    if 'memsize' in found and 'memhash' in found:
        pages = int(found['memsize'].partition(':')[2])
        if pages != 0xFFFFFFFF:
            res['memory'] = [pages, int(found['memhash'].partition(':')[2])]
    if rc is None:
        return dict(res, outcome='timeout', message=err)
    if 'run' not in found:
        msg = err.strip().splitlines()[-1] if err.strip() else 'no output (exit %s)' % rc
        m = re.match(r'error initializing module: (.*)', msg)
        if m:
            return dict(res, outcome='trap', message=m.group(1), instantiate=True)
        return dict(res, outcome='error', message=msg[:300])
    text = found['run']
    if text.startswith('error: '):
        msg = text[len('error: '):]
        if 'stack exhausted' in msg:
            return dict(res, outcome='exhausted', message=msg)
        return dict(res, outcome='trap', message=msg)
    vals = []
    raw = [v.partition(':')[2] for v in text.split(', ')] if text else []
    for t, v in zip(results, raw):
        n = int(v)
        if t == 'i32':
            vals.append(signed(n, 32))
        elif t == 'i64':
            vals.append(signed(n, 64))
        elif t in ('f32', 'f64'):
            vals.append(canonical_bits(n, t == 'f32'))
        else:
            vals.append('null' if n == 1 else 'nonnull')
    if len(raw) != len(results):
        return dict(res, outcome='error', message='run() printed %r' % text)
    return dict(res, outcome='ok', results=vals)


def parse_node(d):
    """One export's outcome from node_run.mjs (hex results normalised)."""
    if d['outcome'] == 'ok':
        d['results'] = [v if v in ('nan', 'null', 'nonnull') or not v.startswith('0x')
                        else hex(int(v, 16)) for v in d['results']]
    return d


# ---- one module ----

ZERO_ARG = {'i32': 'i32:0', 'i64': 'i64:0', 'f32': 'f32:0', 'f64': 'f64:0',
            'funcref': 'funcref:null', 'externref': 'externref:null'}


class Context:
    def __init__(self, opts):
        self.opts = opts


def generate(opts, seed, index, work):
    """Writes work/seed.bin and work/raw.wasm; returns (mode: 'base' or 'refs', invalid
    attempts refused by all three engines, a mismatch or None, a reason to skip or None).
    raw.wasm is valid for wabt when neither is given."""
    rng = random.Random('%s:%d' % (seed, index))
    refs = index % REFS_EVERY == REFS_EVERY - 1
    # a third of the modules also go through random optimisation passes (-fp), whose
    # code has other shapes than -ttf's alone
    passes = ['--fuzz-passes'] if rng.random() < 1 / 3 else []
    rejected = 0
    for attempt in range(REFS_TRIES if refs else 1):
        data = rng.randbytes(rng.randint(64, 6000))
        with open(os.path.join(work, 'seed.bin'), 'wb') as f:
            f.write(data)
        raw = os.path.join(work, 'raw.wasm')
        rc, _, err = run(['wasm-opt', os.path.join(work, 'seed.bin'), '-ttf', '-o', raw]
                         + passes + (REFS_FEATURES if refs else FEATURES))
        if rc != 0:
            return 'refs' if refs else 'base', rejected, None, 'wasm-opt failed: %s' % err[-200:]
        rc, _, err = run(['wasm-validate', raw])
        if rc == 0:
            return 'refs' if refs else 'base', rejected, None, None
        # Not WebAssembly 2.0: wasmdbg and node must refuse it too.
        w_rc, _, w_err = run([opts.wasmdbg, 'invoke', raw, '__no_such_export__'])
        n_rc, _, n_err = run(['node', '-e', 'new WebAssembly.Module(require("fs")'
                              '.readFileSync(process.argv[1]))', raw])
        refused = w_rc == 2 and re.search(r': (malformed|invalid): ', w_err)
        if not refused or n_rc == 0:
            return 'refs' if refs else 'base', rejected, (
                'invalid for wasm-validate (%s) but %s' % (
                    err.strip().splitlines()[-1] if err.strip() else '?',
                    'accepted by wasmdbg (%s)' % w_err.strip()[:200] if not refused
                    else 'compiled by node')), None
        rejected += 1
    return 'refs', rejected, None, 'no valid module in %d tries' % REFS_TRIES


def self_check(opts, args, results, first):
    """wasmdbg against itself: the call again under the pvm tick model, block by block and
    one instruction at a time (--step): the same results and memory as under flat-1, and
    the same output, ticks included, both ways. None, or what differed."""
    limit = ['--max-ticks', str(8 * MAX_TICKS)]
    fast = run([opts.wasmdbg, 'invoke', '--memory-hash', '--tick-model', 'pvm'] + limit + args)
    step = run([opts.wasmdbg, 'invoke', '--memory-hash', '--tick-model', 'pvm', '--step']
               + limit + args)
    pvm = parse_wasmdbg(*fast, results)
    if 'limit' in (first['outcome'], pvm['outcome']):
        return None
    if fast != step:
        return 'pvm block by block [%s] but --step [%s]' % (
            fast[1].strip().replace('\n', '; '), step[1].strip().replace('\n', '; '))
    if {k: v for k, v in pvm.items() if k != 'selfcheck'} != \
            {k: v for k, v in first.items() if k != 'selfcheck'}:
        return 'flat-1 %s but pvm %s' % (describe(first), describe(pvm))
    return None


def engines(opts, work, exports):
    """{engine: [outcome per export]} for wasmdbg, wasm-interp and node."""
    prep = os.path.join(work, 'prepared.wasm')
    out = {'wasmdbg': [], 'wasm-interp': [], 'node': []}
    for name, params, results in exports:
        args = ['--', prep, name] + [ZERO_ARG[p] for p in params]
        rc, o, e = run([opts.wasmdbg, 'invoke', '--memory-hash', '--max-ticks', str(MAX_TICKS)]
                       + args)
        out['wasmdbg'].append(parse_wasmdbg(rc, o, e, results))
        out['wasmdbg'][-1]['selfcheck'] = self_check(opts, args, results, out['wasmdbg'][-1])
        drv = os.path.join(work, 'driver.wasm')
        with open(prep, 'rb') as f:
            data = f.read()
        with open(drv, 'wb') as f:
            f.write(wasmbin.interp_driver(data, name))
        rc, o, e = run(['wasm-interp', '--run-all-exports', '--dummy-import-func', drv])
        out['wasm-interp'].append(parse_interp(rc, o, e, results))
    answer, problem = node_server().request(
        {'file': prep, 'exports': [[n, p, r] for n, p, r in exports]}, TIMEOUT)
    if answer is not None and 'error' in answer:
        problem = answer['error']
    for i in range(len(exports)):
        if problem is None and i < len(answer['outputs']):
            out['node'].append(parse_node(answer['outputs'][i]))
        else:
            out['node'].append({'outcome': 'timeout' if 'timed out' in problem else 'error',
                                'message': problem, 'memory': None})
    return out


class NodeServer:
    """A `node node_run.mjs --serve` process: one module a request, read with a timeout
    (the process is killed and started anew after a timeout or a crash)."""
    servers = []
    lock = threading.Lock()

    def __init__(self):
        self.proc = None
        self.buf = b''
        with NodeServer.lock:
            NodeServer.servers.append(self)

    def stop(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def request(self, req, timeout):
        """(answer, None) or (None, what went wrong)."""
        if self.proc is None:
            self.proc = subprocess.Popen(['node', os.path.join(HERE, 'node_run.mjs'), '--serve'],
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL)
            self.buf = b''
        try:
            self.proc.stdin.write((json.dumps(req) + '\n').encode())
            self.proc.stdin.flush()
        except OSError as e:
            self.stop()
            return None, 'node died (%s)' % e
        deadline = time.monotonic() + timeout
        fd = self.proc.stdout.fileno()
        while b'\n' not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop()
                return None, 'timed out after %d s' % timeout
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    self.stop()
                    return None, 'node exited'
                self.buf += chunk
        line, _, self.buf = self.buf.partition(b'\n')
        return json.loads(line), None


_local = threading.local()


def node_server():
    if not hasattr(_local, 'node'):
        _local.node = NodeServer()
    return _local.node


def describe(o):
    if o['outcome'] == 'ok':
        text = 'returned [%s]' % ', '.join(o['results'])
    else:
        text = '%s (%s)' % (o['outcome'], o.get('message', ''))
    if o.get('memory'):
        text += ', memory %d pages 0x%08x' % tuple(o['memory'])
    return text


def compare_export(outs):
    """None when the engines agree, 'excluded: why' for a resource limit, else the
    difference."""
    if outs.get('wasmdbg', {}).get('selfcheck'):
        return "wasmdbg's own runs differ: " + outs['wasmdbg']['selfcheck']
    for eng, o in outs.items():
        if o['outcome'] in ('exhausted', 'limit', 'timeout'):
            return 'excluded: %s %s' % (eng, o['outcome'])
    names = list(outs)
    kinds = {e: o['outcome'] for e, o in outs.items()}
    if len(set(kinds.values())) > 1 or 'error' in kinds.values():
        return 'outcomes differ: ' + '; '.join('%s %s' % (e, describe(outs[e])) for e in names)
    if kinds[names[0]] == 'ok':
        if len({tuple(o['results']) for o in outs.values()}) > 1:
            return 'results differ: ' + '; '.join('%s %s' % (e, describe(outs[e]))
                                                  for e in names)
    else:
        sets = [trap_kinds(o['message']) for o in outs.values()]
        if not set.intersection(*sets):
            return 'trap kinds differ: ' + '; '.join('%s %s' % (e, outs[e]['message'])
                                                     for e in names)
    mems = {e: tuple(o['memory']) for e, o in outs.items() if o.get('memory')}
    if not any(o.get('instantiate') for o in outs.values()) and len(set(mems.values())) > 1:
        return 'memory differs: ' + '; '.join('%s %d pages 0x%08x' % ((e,) + mems[e])
                                              for e in mems)
    return None


def run_module(opts, work, raw):
    """Prepares module bytes `raw` in work/ and runs it on the three engines:
    (exports, outputs, [differences], agreeing exports, excluded exports)."""
    prep = wasmbin.prepare(raw)
    exports = [(n, [wasmbin.TYPE_NAMES[t] for t in p], [wasmbin.TYPE_NAMES[t] for t in r])
               for n, p, r in wasmbin.Module(prep).func_exports()]
    with open(os.path.join(work, 'prepared.wasm'), 'wb') as f:
        f.write(prep)
    out = engines(opts, work, exports)
    diffs, agreeing, excluded = [], 0, 0
    for i, (ename, _, _) in enumerate(exports):
        d = compare_export({e: out[e][i] for e in out})
        if d and d.startswith('excluded'):
            excluded += 1
        elif d:
            diffs.append((i, '%s: %s' % (ename, d)))
        else:
            agreeing += 1
    return exports, out, diffs, agreeing, excluded


def wasmdbg_alone(outs):
    """Whether wasmdbg differs from wasm-interp and node while those two agree."""
    w, i, n = outs['wasmdbg'], outs['wasm-interp'], outs['node']
    return compare_export({'a': i, 'b': n}) is None and compare_export({'a': w, 'b': i}) is not None


def nan_only(opts, work, raw, exports, out, diffs):
    """Whether the differences come from NaN bit patterns, which WebAssembly leaves
    nondeterministic: the module instrumented by binaryen's --denan (every float a NaN
    becomes 0) agrees everywhere, and no difference has wasmdbg alone against the two
    others (those are kept: both peers giving the same bits on this machine is worth a
    look). On such a difference the module is run again with NaNs removed."""
    if any(wasmdbg_alone({e: out[e][i] for e in out}) for i, _ in diffs):
        return False
    denan = os.path.join(work, 'denan.wasm')
    rc, _, _ = run(['wasm-opt', os.path.join(work, 'raw.wasm'), '--denan', '-o', denan]
                   + REFS_FEATURES)
    if rc != 0:
        return False
    with open(denan, 'rb') as f:
        data = f.read()
    try:
        _, _, diffs2, _, _ = run_module(opts, work, data)
    except wasmbin.Unsupported:
        return False
    finally:
        with open(os.path.join(work, 'prepared.wasm'), 'wb') as f:
            f.write(wasmbin.prepare(raw))
    return not diffs2


def check_module(ctx, index):
    """('ok'|'FAIL'|'skip', name, detail, stats)."""
    opts = ctx.opts
    name = 'mod-%s-%d' % (opts.seed, index)
    stats = {'exports': 0, 'excluded': 0, 'rejected': 0, 'refs': 0, 'nan': 0}
    work = tempfile.mkdtemp(prefix='difftest-', dir=opts.tmp)
    try:
        mode, stats['rejected'], mismatch, skip = generate(opts, opts.seed, index, work)
        if mismatch:
            save(ctx, 'mismatch', name, work, mismatch, {})
            return 'FAIL', name, mismatch, stats
        if skip:
            return 'skip', name, skip, stats
        stats['refs'] = int(mode == 'refs')
        with open(os.path.join(work, 'raw.wasm'), 'rb') as f:
            raw = f.read()
        try:
            exports, out, diffs, stats['exports'], stats['excluded'] = \
                run_module(opts, work, raw)
        except wasmbin.Unsupported as e:
            return 'skip', name, 'unsupported: %s' % e, stats
        details = {'exports': exports, 'outputs': out}
        text = '\n'.join(d for _, d in diffs)
        if diffs and nan_only(opts, work, raw, exports, out, diffs):
            stats['nan'] = 1
            stats['exports'] += len(diffs)
            save(ctx, 'nan', name, work, text, details)
            return 'ok', name, '', stats
        if diffs:
            save(ctx, 'mismatch', name, work, text, details)
            return 'FAIL', name, '%s (%d of %d exports differ)' % (
                diffs[0][1][:400], len(diffs), len(exports)), stats
        return 'ok', name, '', stats
    finally:
        shutil.rmtree(work, ignore_errors=True)


def save(ctx, kind, name, work, what, details):
    """Keeps a mismatch (or a NaN-only difference, kind 'nan'): the module (raw and
    prepared), its seed, what differed and every engine's outputs."""
    d = os.path.join(ctx.opts.out, kind, name)
    os.makedirs(d, exist_ok=True)
    for f in ('seed.bin', 'raw.wasm', 'prepared.wasm'):
        if os.path.exists(os.path.join(work, f)):
            shutil.copy(os.path.join(work, f), d)
    with open(os.path.join(d, 'report.txt'), 'w') as f:
        f.write('%s\n\n%s\n' % (name, what))
        f.write('\nreproduce: python3 tests/difftest/modules.py --wasmdbg build/wasmdbg '
                '--seed %s --only %s --verbose\n' % (ctx.opts.seed, name.rsplit('-', 1)[1]))
        f.write('by hand: build/wasmdbg invoke --memory-hash prepared.wasm EXPORT ARGS; '
                'node tests/difftest/node_run.mjs prepared.wasm < exports.json\n')
    if details:
        with open(os.path.join(d, 'exports.json'), 'w') as f:
            json.dump([[n, p, r] for n, p, r in details['exports']], f)
        with open(os.path.join(d, 'outputs.json'), 'w') as f:
            json.dump(details['outputs'], f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--wasmdbg', required=True)
    ap.add_argument('--count', type=int, default=200)
    ap.add_argument('--seed', default=str(random.randrange(1 << 32)))
    ap.add_argument('--only', type=int, help='only module number ONLY of the seed')
    ap.add_argument('--first', type=int, default=0, help='start at module FIRST')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    ap.add_argument('--out', default='build/difftest')
    ap.add_argument('--verbose', action='store_true')
    opts = ap.parse_args()
    opts.wasmdbg = os.path.abspath(opts.wasmdbg)
    missing = [t for t in ('wasm-opt', 'wasm-validate', 'wasm-interp', 'node')
               if shutil.which(t) is None]
    if missing:
        print('skip modules: %s not found (binaryen, wabt and node are needed; '
              'tests/deps.sh installs them)' % ', '.join(missing))
        print('0 passed, 0 failed, 1 skipped')
        return 0
    os.makedirs(opts.out, exist_ok=True)
    opts.tmp = tempfile.mkdtemp(prefix='difftest-', dir=opts.out)
    ctx = Context(opts)
    indices = [opts.only] if opts.only is not None else \
        range(opts.first, opts.first + opts.count)
    print('== modules: seed %s, %d modules (binaryen %s)' % (
        opts.seed, len(indices), run(['wasm-opt', '--version'])[1].strip()), flush=True)
    counts = {'ok': 0, 'FAIL': 0, 'skip': 0}
    totals = {'exports': 0, 'excluded': 0, 'rejected': 0, 'refs': 0, 'nan': 0}
    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, opts.jobs)) as pool:
            for n, (status, name, detail, stats) in enumerate(
                    pool.map(lambda i: check_module(ctx, i), indices), 1):
                counts[status] += 1
                for k in totals:
                    totals[k] += stats[k]
                if status != 'ok' or opts.verbose:
                    print('%s %s%s' % (status, name, ': ' + detail if detail else ''), flush=True)
                if n % 500 == 0:
                    print('.. %d modules: %d ok, %d failed, %d skipped' % (
                        n, counts['ok'], counts['FAIL'], counts['skip']), flush=True)
    finally:
        for server in NodeServer.servers:
            server.stop()
        shutil.rmtree(opts.tmp, ignore_errors=True)
    print('modules: %d compared on wasmdbg, wasm-interp and node (%d with reference types), '
          '%d exports agreeing, %d exports excluded (a resource limit), %d modules differing '
          'in NaN bits only; %d invalid modules refused by all three' % (
              counts['ok'] + counts['FAIL'], totals['refs'], totals['exports'],
              totals['excluded'], totals['nan'], totals['rejected']))
    print('%d passed, %d failed, %d skipped' % (counts['ok'], counts['FAIL'], counts['skip']))
    return 1 if counts['FAIL'] else 0


if __name__ == '__main__':
    sys.exit(main())
