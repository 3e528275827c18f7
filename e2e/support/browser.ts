/**
 * How the end-to-end tests launch Debian's Chromium: the flags every launch
 * takes (playwright.config.ts, and the specs that launch a browser of their
 * own), and those that only the tests take.
 */

/**
 * No browser UI made for no one: headless Chromium builds a window's omnibox
 * popups (`chrome://omnibox-popup.top-chrome/` and its AI-mode twin) as web
 * pages in a renderer of their own, for every browser context a test opens,
 * though nothing can ever show them. A fresh context's first open of the app
 * took 3.5–3.75 s of CPU, 1.3 s of it in that renderer; 1.85–2.1 s without it.
 * The app's own pages are untouched.
 */
export const noBrowserUi =
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,PreloadTopChromeWebUI';

/** Flags every e2e and bench browser takes: `npm run bench` launches Chromium as the tests do. */
export const chromiumArgs = [
  // Gives navigator.gpu an adapter (SwiftShader when there is no GPU).
  '--enable-unsafe-webgpu',
  '--disable-background-networking',
  noBrowserUi,
];

/**
 * The V8 flags of the end-to-end browsers only: baseline code.
 *
 * V8 spends most of a short test optimizing code the test then barely runs: onnxruntime's
 * 14 MB of WASM tiered up to TurboFan on a background thread (4.0 s of CPU in a fresh
 * page's first run of the default example, 0.7 s with Liftoff only), and the app's
 * JavaScript likewise. Baseline code only, WASM compiled a function at a time as it is
 * first called: that run took 10.0 s of CPU, now 4.7 s; three specs 218 s, now ~145 s.
 * The same code runs, only less optimized; speed is measured in `npm run bench`, which
 * leaves V8 as it ships (`chromiumArgs` without this).
 */
export const baselineCode = '--js-flags=--liftoff-only,--no-turbofan,--wasm-lazy-compilation';
