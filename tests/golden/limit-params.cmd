invoke tests/golden/data/limits/params-1001.wasm f
