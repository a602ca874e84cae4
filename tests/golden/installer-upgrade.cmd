run kernels/counter/counter.wasm --installer-config tests/golden/data/upgrade.yaml --inputs $SHARED/kernels/empty-two-levels.inputs.json --without-time
