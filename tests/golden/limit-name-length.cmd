invoke tests/golden/data/limits/name-length.wasm f
