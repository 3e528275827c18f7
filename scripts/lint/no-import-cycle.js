// @ts-check
/**
 * Lint rule `flowbench/no-import-cycle`: no module may reach itself through
 * its imports — value imports, `import type`, re-exports and dynamic
 * `import()` alike.
 *
 * Why our own rule: eslint-plugin-import-x's `no-cycle` skips type-only
 * imports, and both circles this codebase once had (executor ↔ node-run,
 * mlp-train ↔ train-step) were closed by an `import type`. A circle of types
 * is still a circle of layers: neither module can be understood, moved or
 * tested without the other.
 *
 * How: each file's import specifiers come from TypeScript's own pre-parser
 * (`ts.preProcessFile`, no type checking), relative ones are resolved the way
 * the bundler resolves them (the path, then `.ts`, `.tsx`, `/index.ts` …),
 * and the graph is kept for the whole lint run, re-read when a file changes.
 * An import is reported when the file it names leads back to the importer;
 * the message shows the shortest way round. Trade-off: only relative
 * specifiers are followed — the project uses no path aliases, and packages
 * cannot import us back.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SUFFIXES = ['', '.ts', '.tsx', '.js', '.mjs', '/index.ts', '/index.tsx', '/index.js'];

/** @type {Map<string, { mtimeMs: number; checkedAt: number; imports: string[] }>} */
const graph = new Map();
/** A stat per file per this many milliseconds is plenty within one lint run, and keeps editors fresh. */
const RECHECK_MS = 2000;

/** @param {string} file */
function isFile(file) {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The file a relative specifier names, or null (a package, an asset, a JSON file).
 * @param {string} from
 * @param {string} specifier
 */
function resolve(from, specifier) {
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), specifier);
  for (const suffix of SUFFIXES) {
    const candidate = base + suffix;
    if (SOURCE.test(candidate) && isFile(candidate)) return candidate;
  }
  return null;
}

/**
 * The resolved imports of `file`, from the cache while it is fresh.
 * @param {string} file
 * @returns {string[]}
 */
function importsOf(file) {
  const now = Date.now();
  const known = graph.get(file);
  if (known && now - known.checkedAt < RECHECK_MS) return known.imports;
  let mtimeMs;
  try {
    mtimeMs = fs.statSync(file).mtimeMs;
  } catch {
    graph.delete(file);
    return [];
  }
  if (known && known.mtimeMs === mtimeMs) {
    known.checkedAt = now;
    return known.imports;
  }
  const text = fs.readFileSync(file, 'utf8');
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const imports = [
    ...new Set(
      importedFiles
        .map(({ fileName }) => resolve(file, fileName))
        .filter((target) => target !== null),
    ),
  ];
  graph.set(file, { mtimeMs, checkedAt: now, imports });
  return imports;
}

/**
 * The shortest chain of imports from `start` to `goal` (both included), or null.
 * @param {string} start
 * @param {string} goal
 */
function pathBetween(start, goal) {
  /** @type {Map<string, string | null>} */
  const cameFrom = new Map([[start, null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const file = /** @type {string} */ (queue[i]);
    if (file === goal) {
      const chain = [];
      for (let at = /** @type {string | null | undefined} */ (goal); at; at = cameFrom.get(at))
        chain.unshift(at);
      return chain;
    }
    for (const next of importsOf(file))
      if (!cameFrom.has(next)) {
        cameFrom.set(next, file);
        queue.push(next);
      }
  }
  return null;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid imports that lead back to the importing module' },
    schema: [],
    messages: { cycle: 'Import circle: {{chain}}' },
  },
  create(context) {
    const file = context.physicalFilename;
    if (!path.isAbsolute(file) || !SOURCE.test(file)) return {};
    const cwd = context.cwd;
    /** @param {import('estree').Node} node @param {unknown} source */
    const check = (node, source) => {
      if (typeof source !== 'string') return;
      const target = resolve(file, source);
      if (target === null || target === file) return;
      const back = pathBetween(target, file);
      if (back === null) return;
      const chain = [file, ...back].map((f) => path.relative(cwd, f)).join(' → ');
      context.report({ node, messageId: 'cycle', data: { chain } });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};
