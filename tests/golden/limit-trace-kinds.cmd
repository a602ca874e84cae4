report tests/golden/data/limits/kinds-1025.trace
