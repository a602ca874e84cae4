budget check kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --no-kernel-debug --budget tests/budget/retired-option.budget.json --tick-model pvm-2.0
