;; The smallest module: every section absent.
(module)
