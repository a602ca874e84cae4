;; Issue 26 (found by make difftest): an i32.rem_s by zero whose result goes to a local
;; (wasmdbg folds the local.set into the division) trapping in the last ticks of the
;; period. The Octez PVM runs the division (6 ticks), traps (Trapping 3, SK_Trapped 1) and
;; reaches Padding at the period's last tick; wasmdbg charged the folded set too before
;; running it one instruction at a time, found that it did not fit, and reported the run
;; stuck (Too_many_ticks). The cmd's --ticks-per-snapshot is the run's effective ticks + 1
;; (the tick model's count): the run must trap, not get stuck.
(module
  (memory (export "mem") 1)
  (func $kernel_run (export "kernel_run") (local i32 i32)
    (local.set 1 (i32.rem_s (i32.const 7) (local.get 0)))
    (local.set 0 (local.get 1))))
