run tests/regress/issue-26-trap-at-period-end-load.wat --inputs tests/regress/one-level.inputs.json --ticks-per-snapshot 166 --without-time
