;; invoke --memory-hash: the size of memory 0 and the FNV-1a hash of its bytes, after a
;; call that returns, one that traps (what it stored before the trap counts), and one
;; stopped by --max-ticks.
(module
  (memory 2 3)
  (data (i32.const 16) "wasmdbg")
  (func (export "grow") (param i32) (result i32)
    (i32.store (i32.const 0x1fffc) (local.get 0))
    (memory.grow (i32.const 1)))
  (func (export "trap") (param i32)
    (i32.store8 (i32.const 0) (local.get 0))
    (i32.store (i32.const 0x20000) (local.get 0))))
