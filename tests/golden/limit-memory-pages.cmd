invoke tests/golden/data/limits/memory-65537.wasm f
