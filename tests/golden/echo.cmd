run $SHARED/kernels/echo.wasm --inputs $SHARED/kernels/echo.inputs.json --without-time
