budget update kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --no-kernel-debug --budget tests/budget/no-such-dir/budget.json
