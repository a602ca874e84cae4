invoke tests/golden/data/limits/recurse.wat f
