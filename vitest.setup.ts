// Before every test file: an in-memory IndexedDB, as the command line has one (cli/headless-run.ts).
// Files share their worker's modules (vitest.config.ts, `isolate`), and Dexie takes the global
// `indexedDB` when it is first imported: were it first imported by a file that brings no
// IndexedDB of its own, every later file in that worker would find none.
import 'fake-indexeddb/auto';
