invoke tests/golden/data/limits/br-table-count.wasm f
