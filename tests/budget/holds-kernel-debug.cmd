budget check kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --budget tests/budget/holds.budget.json
