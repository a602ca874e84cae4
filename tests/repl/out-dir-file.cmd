debug kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json -o tests/repl/loop.wat
