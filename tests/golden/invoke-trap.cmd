invoke tests/golden/data/invoke-trap.wat outer 7
