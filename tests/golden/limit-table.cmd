invoke tests/golden/data/limits/table-10000001.wat f
