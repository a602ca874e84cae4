run kernels/counter/counter.wasm --installer-config tests/golden/data/odd-hex.json
