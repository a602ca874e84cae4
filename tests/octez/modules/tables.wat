;; Table, reference and passive-segment instructions, which the model does not cover: their
;; ticks are checked against RULES.md by tests/octez/hand.py.
(module
  (memory (export "mem") 1)
  (table $t 8 funcref)
  (elem $e func $a $a $a)
  (data $d "hello")
  (func $a)
  (func (export "kernel_run")
    (memory.init $d (i32.const 16) (i32.const 0) (i32.const 5))   ;; n = 5
    (data.drop $d)
    (table.init $t $e (i32.const 0) (i32.const 1) (i32.const 2))  ;; n = 2
    (table.copy (i32.const 4) (i32.const 0) (i32.const 2))        ;; n = 2
    (table.fill $t (i32.const 6) (ref.func $a) (i32.const 2))     ;; n = 2
    (elem.drop $e)
    (drop (table.size $t))
    (drop (table.grow $t (ref.null func) (i32.const 1)))
    (table.set $t (i32.const 7) (table.get $t (i32.const 0)))
    (drop (ref.is_null (ref.null func)))
    (memory.fill (i32.const 0) (i32.const 0) (i32.const 0))       ;; n = 0
    (memory.copy (i32.const 0) (i32.const 8) (i32.const 3))))     ;; n = 3
