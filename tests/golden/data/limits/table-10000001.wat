;; A table of 10,000,001 elements: past the 10,000,000 all the tables of a store may hold
;; (link/runtime.c TABLE_LIMIT).
(module
  (table 10000001 funcref)
  (func (export "f")))
