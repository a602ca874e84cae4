;; Every kind of element segment (flags 0-7), active and passive data, imported and defined
;; globals, tables and functions, names with multi-byte code points.
(module
  (import "env" "g" (global $gi i32))
  (import "env" "t" (table 1 funcref))
  (import "env" "ĥéllo☃" (func $f0 (param i32)))
  (memory 1)
  (table $t2 4 funcref)
  (global $g1 (mut i32) (i32.const 5))
  (global $g2 i32 (global.get $gi))
  (global $g3 i64 (i64.const -1))
  (export "mem" (memory 0))
  (func $a (export "ünï€") (param i32 i64) (result i32) (local i32 i64 i64)
    local.get 0)
  (func $b (export "kernel_run")
    i32.const 1
    if (result i32)
      i32.const 2
    else
      block (result i32)
        loop
          br 0
        end
        i32.const 3
      end
    end
    call $f0)
  (elem (i32.const 0) $a $b)
  (elem func $a)
  (elem (table $t2) (i32.const 1) func $a $b)
  (elem declare func $b)
  (elem (i32.const 0) funcref (ref.func $a) (ref.null func))
  (elem funcref (ref.func $b) (ref.null func) (ref.func $a))
  (elem (table $t2) (i32.const 2) funcref (ref.func $a))
  (elem declare funcref (ref.func $a))
  (data (i32.const 16) "hello")
  (data "passive bytes")
  (data (i32.const 32) "")
  (data (memory 0) (i32.const 40) "x"))
