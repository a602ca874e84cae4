debug $SHARED/kernels/echo.wasm --inputs $SHARED/kernels/echo.inputs.json --echo
