run $SHARED/kernels/echo.wasm --inputs $SHARED/kernels/echo.inputs.json --without-time --tick-model flat-1
