;; A kernel_run that never returns (until the period's 50e12 ticks): for interrupting.
(module
  (memory (export "memory") 1)
  (func (export "kernel_run")
    (loop $forever (br $forever))))
