report tests/golden/data/limits/string-65537.trace
