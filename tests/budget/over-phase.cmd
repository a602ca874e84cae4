budget check kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --no-kernel-debug --budget tests/budget/over-phase.budget.json
