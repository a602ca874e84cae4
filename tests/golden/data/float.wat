(module
  (memory (export "memory") 1)
  (func $kernel_run (export "kernel_run")
    (drop (f32.add (f32.const 1) (f32.const 2)))))
