#!/usr/bin/env python3
"""hand.py WASMDBG: the ticks of what the model does not cover, against figures computed by
hand from ../shared/reference/octez-ticks/RULES.md, for two modules of tests/octez/modules:

- tables.wat, table and reference instructions, memory.init, data.drop, elem.drop
  (section 6.2): 6 per instruction + the bulk operations' units (memory.fill, memory.init,
  table.fill, table.init: 42 each; memory.copy, table.copy: 48; none when n = 0);
- hosts.wat, store_create and store_get_nth_key with success and error results
  (section 7): a host call is 6 + 5 + h, h = 42 per key byte + 1 on success, 0 on error.

kernel_run's phase = IK_Stop -> Eval 1 + invoke 8 (no params, no locals) + the body + the
body's end 6. Prints `N passed, N failed`.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# (instructions, bulk ticks) per line of kernel_run in tables.wat
BODY = [(4, 42 * 5),   # memory.init of 5 bytes
        (1, 0),        # data.drop
        (4, 42 * 2),   # table.init of 2
        (4, 48 * 2),   # table.copy of 2
        (4, 42 * 2),   # table.fill of 2
        (1, 0),        # elem.drop
        (2, 0),        # table.size, drop
        (4, 0),        # ref.null, i32.const, table.grow, drop
        (4, 0),        # i32.const, i32.const, table.get, table.set
        (3, 0),        # ref.null, ref.is_null, drop
        (4, 0),        # memory.fill of 0
        (4, 48 * 3)]   # memory.copy of 3
# (instructions, host ticks 5 + h) per line of kernel_run in hosts.wat
HOSTS = [(5, 5 + 42 * 4 + 1),  # 3 args, call, drop: store_create of a 4-byte key
         (5, 5),               # the same again: already exists (-13), h = 0
         (7, 5 + 42 * 2 + 1),  # 5 args, call, drop: store_get_nth_key of a 2-byte key
         (7, 5)]               # child 9 of 1 (-12), h = 0
CASES = [('tables', 1 + 8 + sum(6 * n + bulk for n, bulk in BODY) + 6),
         ('hosts', 1 + 8 + sum(6 * n + host for n, host in HOSTS) + 6)]


def main():
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        inputs = os.path.join(tmp, 'in.json')
        with open(inputs, 'w') as f:
            f.write('[[]]')
        for name, want in CASES:
            wasm = os.path.join(tmp, name + '.wasm')
            subprocess.run(['wat2wasm', '--debug-names',
                            os.path.join(HERE, 'modules', name + '.wat'), '-o', wasm], check=True)
            p = subprocess.run([wasmdbg_path(), 'run', wasm, '--inputs', inputs, '--json',
                                '--no-kernel-debug', '--without-time'], capture_output=True,
                               text=True, check=True)
            run = json.loads(p.stdout)['levels'][0]['runs'][0]
            got = run['phases']['kernel_run']
            # and 8 ticks outside the phases (RULES.md section 2)
            ok = got == want and run['outcome'] == 'ok' and \
                run['ticks'] == sum(run['phases'].values()) + 8
            print('%s %s.wat: kernel_run %d (by hand %d), run %d ticks, phases %s' % (
                'ok' if ok else 'FAIL', name, got, want, run['ticks'], run['phases']))
            passed += ok
            failed += not ok
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


def wasmdbg_path():
    return sys.argv[1]


if __name__ == '__main__':
    sys.exit(main())
