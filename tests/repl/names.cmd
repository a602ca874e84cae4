debug tests/repl/names.wat --inputs $SHARED/kernels/empty-two-levels.inputs.json --echo
