run tests/golden/data/trap-dwarf.wasm --inputs tests/golden/data/one-level.inputs.json --without-time
