budget check kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --no-kernel-debug --budget tests/budget/holds.budget.json --junit /dev/full
