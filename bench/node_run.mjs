// node_run.mjs: the V8 peer of `make bench`. Instantiates a workload (no imports), calls
// the export named by the second argument (default "run"), and prints the result the way
// `wasmdbg invoke` does: i32:N (signed) or i64:N (signed).
// usage: node bench/node_run.mjs FILE.wasm [EXPORT]
import fs from 'node:fs';

const [file, name = 'run'] = process.argv.slice(2);
const module = new WebAssembly.Module(fs.readFileSync(file));
const instance = new WebAssembly.Instance(module, {});
const result = instance.exports[name]();
if (typeof result === 'bigint')
    console.log(`i64:${BigInt.asIntN(64, result)}`);
else
    console.log(`i32:${result | 0}`);
