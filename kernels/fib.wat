;; fib.wat: a small plain module for `make run` and the CLI smoke tests.
;; Build the committed binary with: wat2wasm --debug-names kernels/fib.wat -o kernels/fib.wasm
(module
  ;; The naive doubly recursive Fibonacci: many calls, for a visible tick count.
  (func $fib (export "fib") (param $n i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else
        (i32.add
          (call $fib (i32.sub (local.get $n) (i32.const 1)))
          (call $fib (i32.sub (local.get $n) (i32.const 2)))))))

  ;; The same with a loop, in i64.
  (func $fib_iter (export "fib_iter") (param $n i64) (result i64)
    (local $a i64) (local $b i64) (local $t i64)
    (local.set $b (i64.const 1))
    (block $done
      (loop $next
        (br_if $done (i64.eqz (local.get $n)))
        (local.set $t (i64.add (local.get $a) (local.get $b)))
        (local.set $a (local.get $b))
        (local.set $b (local.get $t))
        (local.set $n (i64.sub (local.get $n) (i64.const 1)))
        (br $next)))
    (local.get $a))

  ;; Traps on a zero divisor: `wasmdbg invoke kernels/fib.wasm div 1 0`.
  (func $div (export "div") (param $a i32) (param $b i32) (result i32)
    (i32.div_s (local.get $a) (local.get $b))))
