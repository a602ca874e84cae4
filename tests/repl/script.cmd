debug kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json -x tests/repl/script.x
