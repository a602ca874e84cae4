invoke tests/golden/data/limits/locals-50001.wasm f
