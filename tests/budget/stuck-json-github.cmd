budget check $SHARED/kernels/stack_overflow.wasm --inputs kernels/counter/counter.inputs.json --budget tests/budget/stuck.budget.json --json --github
