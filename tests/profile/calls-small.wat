;; calls-small.wat: calls.wat with fib 20 (21,891 calls), for tests/profile/run.sh.
(module
  (memory (export "memory") 1)
  (func $fib (param $n i32) (result i32)
    (if (result i32) (i32.lt_u (local.get $n) (i32.const 2))
      (then (local.get $n))
      (else
        (i32.add
          (call $fib (i32.sub (local.get $n) (i32.const 1)))
          (call $fib (i32.sub (local.get $n) (i32.const 2)))))))
  (func (export "kernel_run")
    (drop (call $fib (i32.const 20)))))
