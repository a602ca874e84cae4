;; Issue 26: the same as issue-26-trap-at-period-end-div with a load out of bounds whose
;; result goes to a local: the load traps in the period's last ticks, the folded
;; local.set never runs; the run traps, it is not stuck.
(module
  (memory (export "mem") 1)
  (func $kernel_run (export "kernel_run") (local i32)
    (local.set 0 (i32.load offset=8 (i32.const 65532)))
    (drop (local.get 0))))
