invoke tests/golden/data/limits/type-count.wasm f
