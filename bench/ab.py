#!/usr/bin/env python3
"""bench/ab.py: A/B timing of `wasmdbg profile` (or run) for two builds, paired by round.

    python3 bench/ab.py [-n ROUNDS] [--kernel tx|counter] [--run BIN] [--cmd profile|run] A B

Each round runs `BIN run` (BIN: --run, default A) and A's and B's command once each, in
an order that goes through all six permutations, so no build always comes first. It prints
the median of each, its ratio to `run`, and the median of the per-round differences B - A:
with this machine's speed moving by a third from one minute to the next, only paired
differences resolve changes of a few percent.

A and B write their profiles into the SAME fresh directory (under build/ab), removed at the
end. ext4 decides what a file creation costs by the block group of the directory, so two
directories alone made a 170 us difference on counter. This file system (no journal) keeps
freed inodes from reuse for one to five minutes and scans past them, so wait five minutes
after deleting many files (this script's cleanup included) before timing profiles again.
Keep the rounds few for tx-kernel: each profile writes 3.9 MB, and gigabytes of writeback
slowed every later measurement. Needs python3 (not needed by make test).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SHARED = os.environ.get("WD_SHARED_DIR", "../shared")
KERNELS = {
    "tx": [SHARED + "/kernels/tx-kernel-no-verif.wasm", "--inputs",
           SHARED + "/kernels/tx-kernel.inputs.json",
           "--rollup", "sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg"],
    "counter": ["kernels/counter/counter.wasm", "--inputs",
                "kernels/counter/counter.inputs.json"],
}
ORDERS = [("run", "A", "B"), ("B", "A", "run"), ("A", "B", "run"),
          ("run", "B", "A"), ("A", "run", "B"), ("B", "run", "A")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--rounds", type=int, default=60)
    ap.add_argument("--kernel", choices=sorted(KERNELS), default="counter")
    ap.add_argument("--run", help="the build whose `run` is the baseline (default: A)")
    ap.add_argument("--cmd", choices=["profile", "run"], default="profile")
    ap.add_argument("a")
    ap.add_argument("b")
    o = ap.parse_args()
    args = KERNELS[o.kernel]
    for f in (o.a, o.b, o.run or o.a, args[0]):
        if not os.path.exists(f):
            sys.exit("ab.py: %s: no such file" % f)
    os.makedirs("build/ab", exist_ok=True)
    out = tempfile.mkdtemp(dir="build/ab")
    extra = ["-o", out] if o.cmd == "profile" else []
    cmds = {"run": [o.run or o.a, "run"] + args,
            "A": [o.a, o.cmd] + args + extra,
            "B": [o.b, o.cmd] + args + extra}
    env = {k: v for k, v in os.environ.items() if not k.startswith("X_")}
    times = {k: [] for k in cmds}
    try:
        with open(os.devnull, "w") as null:
            for i in range(o.rounds):
                for k in ORDERS[i % len(ORDERS)]:
                    t0 = time.perf_counter()
                    r = subprocess.run(cmds[k], stdout=null, stderr=null, env=env)
                    times[k].append(time.perf_counter() - t0)
                    if r.returncode != 0:
                        sys.exit("ab.py: %s exited with %d" % (" ".join(cmds[k]), r.returncode))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    med = {k: statistics.median(v) for k, v in times.items()}
    diff = statistics.median(b - a for a, b in zip(times["A"], times["B"]))
    print("%d rounds of %s, %s" % (o.rounds, o.kernel, o.cmd))
    for k in ("run", "A", "B"):
        print("  %-3s median %8.3f ms  %.3fx run" % (k, med[k] * 1e3, med[k] / med["run"]))
    print("  B - A, median of the rounds' differences: %+.0f us" % (diff * 1e6))


if __name__ == "__main__":
    main()
