/**
 * The V8 flags of the end-to-end browsers: baseline code only.
 *
 * V8 spends most of a short test optimizing code the test then barely runs: onnxruntime's
 * 14 MB of WASM tiered up to TurboFan on a background thread (4.0 s of CPU in a fresh
 * page's first run of the default example, 0.7 s with Liftoff only), and the app's
 * JavaScript likewise. Baseline code only, WASM compiled a function at a time as it is
 * first called: that run took 10.0 s of CPU, now 4.7 s; three specs 218 s, now ~145 s.
 * The same code runs, only less optimized; speed is measured in `npm run bench`, which
 * leaves V8 as it ships.
 */
export const baselineCode = '--js-flags=--liftoff-only,--no-turbofan,--wasm-lazy-compilation';
