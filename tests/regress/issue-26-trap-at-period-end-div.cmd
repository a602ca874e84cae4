run tests/regress/issue-26-trap-at-period-end-div.wat --inputs tests/regress/one-level.inputs.json --ticks-per-snapshot 177 --without-time
