debug kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --installer-config tests/repl/signed-kinds.installer.json --echo
