;; Asks for a reboot at every run: the PVM gives a level 1,001 kernel runs (its inbox's and
;; 1,000 reboots), then forces a yield and sets /readonly/kernel/env/too_many_reboot.
(module
  (import "smart_rollup_core" "store_write" (func $store_write (param i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "/kernel/env/reboot")
  (func (export "kernel_run")
    (drop (call $store_write (i32.const 0) (i32.const 18) (i32.const 0) (i32.const 0) (i32.const 0)))))
