debug $SHARED/kernels/tx-kernel-no-verif.wasm --inputs $SHARED/kernels/tx-kernel.inputs.json --rollup sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg --no-kernel-debug --echo
