// make_ort_profiles.js - profiles ONNX models with onnxruntime-node (CPU
// execution provider) at each graph optimization level and writes the
// profiles ONNX Runtime makes, as it makes them.  Run by
// make_ort_profiles.sh, which says how to install onnxruntime-node; not a
// build or test dependency.
//
//   node make_ort_profiles.js OUTDIR MODEL.onnx...
//
// For each MODEL and level L in disabled, basic, extended, all: a session
// with one intra-op thread (sequential execution), RUNS runs on a fixed
// random input, then OUTDIR/<stem>.ort-<L>.json.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const LEVELS = ['disabled', 'basic', 'extended', 'all'];
const RUNS = 3;

// a fixed pseudo-random input (a linear congruential generator), so that
// the same script gives the same inputs
function input(dims) {
	const n = dims.reduce((a, b) => a * b, 1);
	const data = new Float32Array(n);
	let s = 12345;
	for (let i = 0; i < n; i++) {
		s = (Math.imul(s, 1103515245) + 12345) >>> 0;
		data[i] = (s / 4294967296) * 2 - 1;
	}
	return new ort.Tensor('float32', data, dims);
}

async function profile(outdir, model, level) {
	const stem = path.basename(model, '.onnx');
	const prefix = path.join(outdir, `${stem}.ort-${level}`);
	const session = await ort.InferenceSession.create(model, {
		executionProviders: ['cpu'],
		graphOptimizationLevel: level,
		executionMode: 'sequential',
		intraOpNumThreads: 1,
		interOpNumThreads: 1,
		enableProfiling: true,
		profileFilePrefix: prefix,
	});
	const meta = session.inputMetadata ? session.inputMetadata[0] : null;
	const dims = meta && meta.shape ? meta.shape : null;
	if (!dims || dims.some((d) => typeof d !== 'number'))
		throw new Error(`${model}: the input needs fixed dims`);
	for (let r = 0; r < RUNS; r++)
		await session.run({[session.inputNames[0]]: input(dims)});
	session.endProfiling();
	await session.release();
	// ORT names the file PREFIX_<date>.json: give it a stable name
	const dir = path.dirname(prefix), base = path.basename(prefix) + '_';
	const made = fs.readdirSync(dir).filter((f) => f.startsWith(base) && f.endsWith('.json'));
	if (made.length !== 1)
		throw new Error(`${prefix}: expected one profile, found ${made.length}`);
	fs.renameSync(path.join(dir, made[0]), prefix + '.json');
	console.log(`${prefix}.json (${fs.statSync(prefix + '.json').size} bytes)`);
}

async function main() {
	const [outdir, ...models] = process.argv.slice(2);
	if (!outdir || models.length === 0) {
		console.error('usage: node make_ort_profiles.js OUTDIR MODEL.onnx...');
		process.exit(2);
	}
	console.log(`onnxruntime-node ${ort.env.versions.node}`);
	for (const m of models)
		for (const level of LEVELS)
			await profile(outdir, m, level);
}

main().catch((e) => {
	console.error(e.message || e);
	process.exit(1);
});
