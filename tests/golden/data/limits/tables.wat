;; Two tables of 6,000,000 elements: the second goes past the 10,000,000 all the tables of a
;; store may hold together (link/runtime.c TABLE_LIMIT). The Octez PVM allocates tables
;; lazily and would run this kernel.
(module
  (memory (export "memory") 1)
  (table 6000000 funcref)
  (table 6000000 funcref)
  (func (export "kernel_run")))
