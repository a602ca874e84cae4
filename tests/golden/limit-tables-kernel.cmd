run tests/golden/data/limits/tables.wat --inputs tests/golden/data/one-level.inputs.json --without-time
