;; loop.wat: a kernel whose kernel_run never returns (the PVM would give it a whole period,
;; 50e12 ticks): `budget check` must stop it as soon as a bound is certainly exceeded.
(module
  (memory (export "memory") 1)
  (func (export "kernel_run")
    (loop br 0)))
