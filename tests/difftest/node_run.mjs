// node_run.mjs: the V8 engine of the differential test (tests/difftest/modules.py).
// usage: node node_run.mjs MODULE.wasm < EXPORTS.json      (one module, by hand)
//        node node_run.mjs --serve                        (modules.py: one module a line)
// EXPORTS.json: [[name, [param types], [result types]], ...], the function exports to call.
// Each export is called in a fresh instance with zero arguments (0, 0n, null); the imports
// are spectest's print functions, which do nothing. One JSON line per export:
//   {"name", "outcome": "ok"|"trap"|"exhausted"|"error", "results": [...], "message",
//    "memory": [pages, fnv1a32] | null}
// Results: i32 and i64 as signed decimal strings, f32 and f64 as their bit patterns in hex
// ("nan" for any NaN: a JS number keeps no NaN payload), references as "null"/"nonnull".
// The memory is the module's exported memory (wasmbin.prepare exports memory 0), hashed
// with 32-bit FNV-1a over all its bytes as `wasmdbg invoke --memory-hash` does.
// --serve reads {"file", "exports"} lines and answers each with one line: {"outputs":
// [the lines above]} or {"error": message}; a process per module would cost node's start
// (0.15 s of CPU) every time.
import fs from 'node:fs';
import readline from 'node:readline';

const f32 = new Float32Array(1), u32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1), u64 = new BigUint64Array(f64.buffer);

function show(type, v) {
    switch (type) {
    case 'i32': return String(v | 0);
    case 'i64': return String(BigInt.asIntN(64, v));
    case 'f32':
        if (Number.isNaN(v)) return 'nan';
        f32[0] = v;
        return '0x' + u32[0].toString(16);
    case 'f64':
        if (Number.isNaN(v)) return 'nan';
        f64[0] = v;
        return '0x' + u64[0].toString(16);
    default: return v === null ? 'null' : 'nonnull';
    }
}

function zero(type) {
    if (type === 'i64') return 0n;
    if (type === 'funcref' || type === 'externref') return null;
    return 0;
}

function memoryHash(instance, memoryExport) {
    if (!memoryExport) return null;
    const bytes = new Uint8Array(instance.exports[memoryExport.name].buffer);
    let h = 0x811c9dc5;
    for (let i = 0; i < bytes.length; i++)
        h = Math.imul(h ^ bytes[i], 0x01000193);
    return [bytes.length / 65536, h >>> 0];
}

function outcomeOf(e) {
    if (e instanceof WebAssembly.RuntimeError) return {outcome: 'trap', message: e.message};
    if (e instanceof RangeError && /call stack/i.test(e.message))
        return {outcome: 'exhausted', message: e.message};
    return {outcome: 'error', message: `${e.constructor.name}: ${e.message}`};
}

function runModule(file, exportsToCall) {
    const module = new WebAssembly.Module(fs.readFileSync(file));
    const imports = {};
    for (const imp of WebAssembly.Module.imports(module)) {
        if (imp.kind !== 'function')
            throw new Error(`unexpected import ${imp.module}.${imp.name}`);
        (imports[imp.module] ??= {})[imp.name] = () => {};
    }
    const memoryExport = WebAssembly.Module.exports(module).find((e) => e.kind === 'memory');
    const outputs = [];
    for (const [name, params, results] of exportsToCall) {
        let instance, line;
        try {
            instance = new WebAssembly.Instance(module, imports);
        } catch (e) {
            // A trap while instantiating (a segment out of bounds): no instance to look at.
            outputs.push({name, instantiate: true, ...outcomeOf(e), memory: null});
            continue;
        }
        try {
            let r = instance.exports[name](...params.map(zero));
            if (results.length === 1) r = [r];
            else if (results.length === 0) r = [];
            line = {name, outcome: 'ok', results: results.map((t, i) => show(t, r[i]))};
        } catch (e) {
            line = {name, ...outcomeOf(e)};
        }
        line.memory = memoryHash(instance, memoryExport);
        outputs.push(line);
    }
    return outputs;
}

if (process.argv[2] === '--serve') {
    for await (const text of readline.createInterface({input: process.stdin})) {
        let answer;
        try {
            const req = JSON.parse(text);
            answer = {outputs: runModule(req.file, req.exports)};
        } catch (e) {
            answer = {error: `${e.constructor.name}: ${e.message}`};
        }
        process.stdout.write(JSON.stringify(answer) + '\n');
    }
} else {
    const exportsToCall = JSON.parse(fs.readFileSync(0, 'utf8'));
    for (const line of runModule(process.argv[2], exportsToCall))
        console.log(JSON.stringify(line));
}
