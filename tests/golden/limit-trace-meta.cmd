report tests/golden/data/limits/meta-4097.trace
