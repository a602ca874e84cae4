budget check kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --no-kernel-debug --budget tests/budget/retired-model.budget.json --json --github --junit $TMP/retired.xml
