run kernels/counter/counter.wasm --installer-config tests/golden/data/readonly.json
