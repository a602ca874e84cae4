run tests/golden/data/limits/host-limits.wat --inputs tests/golden/data/limits/big-message.inputs.json --without-time
