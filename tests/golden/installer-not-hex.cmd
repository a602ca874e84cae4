run kernels/counter/counter.wasm --installer-config tests/golden/data/not-hex.json
