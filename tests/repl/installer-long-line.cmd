debug kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --installer-config tests/repl/long-value.installer.yaml --no-kernel-debug --echo
