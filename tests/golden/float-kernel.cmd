run tests/golden/data/float.wat
