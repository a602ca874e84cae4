run kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --no-kernel-debug --installer-config tests/golden/data/no-such-installer.yaml
