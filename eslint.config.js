// @ts-check
import { existsSync } from 'node:fs';
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { noImportCycle } from './scripts/lint/no-import-cycle.js';

/** The Dexie tables, as a selector's name pattern. */
const storedTables =
  '/^(flows|runs|runNodes|metrics|artifacts|intervals|settings|files|poolBookings|transaction|table|tables)$/';

/** Imports a layer may not make (docs/architecture.md, "Layers"). */
const forbid = (...groups) => ({
  'no-restricted-imports': [
    'error',
    { patterns: groups.map((g) => ({ group: g.group, message: g.message })) },
  ],
});

const uiFramework = {
  group: [
    'react',
    'react-dom',
    'react/*',
    '@xyflow/*',
    'zustand',
    'zustand/*',
    '@tanstack/*',
    'uplot',
    'dexie-react-hooks',
  ],
  message: 'core and workers know nothing of the UI',
};
const storage = {
  group: ['dexie', '**/db/*', '**/db'],
  message: 'core is pure: storage belongs to db',
};
const runtime = {
  group: ['onnxruntime-web', 'onnxruntime-web/*'],
  message: 'core reaches onnxruntime only through TensorRuntime',
};
const uiCode = { group: ['**/ui/*', '**/ui/**'], message: 'only the UI imports the UI' };
const workerCode = {
  group: ['**/workers/*', '!**/workers/protocol'],
  message: 'the UI talks to workers only through workers/protocol',
};

/*
 * Layers inside core, listed bottom first. The import graph they describe,
 * measured on the code (an arrow is "imports"; tests obey it too):
 *
 *   errors/ runtime/ random.ts schema.ts   the bottom: the error catalogue, the
 *                                          tensor runtime seam with cancellation
 *                                          and the run scope, seeded randomness,
 *                                          the schema library. They import nothing
 *                                          of core but: runtime/cancel → errors,
 *                                          errors/catalogue → the types its
 *                                          messages carry (flow/issues, run/record)
 *   series/ onnx/                          series → nothing; onnx → errors, random
 *   programs/                              → runtime, onnx, errors
 *   data/                                  → runtime, random, errors, flow/issues
 *   catalog/ records/                      catalog → runtime, onnx, programs,
 *                                          data (the producer contract), errors;
 *                                          records (stored records' schemas and
 *                                          migrations) → schema, runtime,
 *                                          flow/document
 *   flow/                                  → catalog, records, schema
 *   run/ live/                             run → flow, records, catalog, runtime;
 *                                          live → data, catalog, flow, random
 *   engine/ nodes/                         engine → run, flow, catalog, programs,
 *                                          data, runtime; nodes → everything
 *                                          before them
 *
 * A layer imports only layers listed on earlier rows, and two layers on one
 * row never import each other: so the executor (engine) and the node kinds
 * (nodes) know nothing of each other, and the catalog is handed to the
 * executor. flow/document and flow/issues (a flow's shape, findings about
 * one) import nothing of core but the schema library; data and every row
 * after it may use them. The other exceptions are few and named below the
 * layer blocks.
 */
const coreLayers = [
  ['errors', 'runtime', 'random', 'schema'],
  ['series', 'onnx'],
  ['programs'],
  ['data'],
  ['catalog', 'records'],
  ['tables'],
  ['flow'],
  ['run', 'live'],
  ['cache'],
  ['engine', 'nodes'],
];
const files = new Set(['random', 'schema']); // layers that are one file at core's top level
const rowOf = (layer) => coreLayers.findIndex((row) => row.includes(layer));
// A folder's own name matches only an import of its index; it must not match a folder whose
// file is excepted below (gitignore cannot re-include a file inside an excluded folder).
const layerPatterns = (layer) =>
  files.has(layer)
    ? [`**/${layer}`, `**/${layer}.ts`]
    : [
        `**/${layer}/*`,
        ...(existsSync(`${import.meta.dirname}/src/core/${layer}/index.ts`) ? [`**/${layer}`] : []),
      ];
/** What a core layer may not import: every layer on its own row or a later one, but itself. */
const aboveOrBeside = (layer, { allow = [] } = {}) => ({
  group: coreLayers
    .slice(rowOf(layer))
    .flat()
    .filter((other) => other !== layer && !allow.includes(other))
    .flatMap(layerPatterns)
    // flow's two leaves, open to data and every row after it.
    .concat(rowOf(layer) >= rowOf('data') ? ['!**/flow/issues', '!**/flow/document'] : []),
  message: `core/${layer} imports only the layers below it (eslint.config.js, "Layers inside core")`,
});
const coreBoundaries = [
  uiFramework,
  storage,
  uiCode,
  { group: ['**/workers/**'], message: 'core depends on nothing' },
];
/** The whole no-restricted-imports setting of one core layer: core's walls, and its place inside. */
const coreLayer = (layer, { allow = [], runtimeAllowed = false } = {}) =>
  forbid(...coreBoundaries, ...(runtimeAllowed ? [] : [runtime]), aboveOrBeside(layer, { allow }));
const layerFiles = (layer) =>
  files.has(layer) ? [`src/core/${layer}.ts`] : [`src/core/${layer}/**`];

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'test-results', 'playwright-report', 'bench/results.json'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      '@typescript-eslint/no-unnecessary-condition': [
        'error',
        { allowConstantLoopConditions: true },
      ],
      // Two of the typed rules that cost most (5–6 s each of a ~80 s lint) for least: the code
      // declares no enums (the one it meets, uPlot's ambient const `Distr`, it can only set by
      // number, said where it does), and assigning an object literal to a class-typed place is
      // caught by the type checker wherever the class has a private member. The test command's
      // budget is better spent on tests.
      '@typescript-eslint/no-unsafe-enum-assignment': 'off',
      '@typescript-eslint/no-unsafe-class-instance-assignment': 'off',
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['scripts/**', 'bin/**', '*.config.*', 'eslint.config.js'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  { files: ['src/core/**'], rules: forbid(...coreBoundaries, runtime) },
  ...coreLayers.flat().map((layer) => ({ files: layerFiles(layer), rules: coreLayer(layer) })),
  // The few named exceptions; each replaces its files' whole setting, so it restates the walls.
  // Tests of flows, runs and the executor check them against real kinds (the built-in catalog).
  ...['flow', 'run', 'engine'].map((layer) => ({
    files: [`src/core/${layer}/**/*.test.ts`, `src/core/${layer}/testing.ts`],
    rules: coreLayer(layer, { allow: ['nodes'] }),
  })),
  {
    // Cancellation throws the catalogue's `cancelled` error.
    files: ['src/core/runtime/cancel.ts'],
    rules: coreLayer('runtime', { allow: ['errors'] }),
  },
  {
    // The catalogue names the types its messages are made from (and its test, those values).
    files: ['src/core/errors/catalogue.ts', 'src/core/errors/*.test.ts'],
    rules: coreLayer('errors', { allow: ['flow', 'run'] }),
  },
  {
    // The test helper that runs flows of real kinds drives the executor.
    files: ['src/core/nodes/testing.ts'],
    rules: coreLayer('nodes', { allow: ['engine'] }),
  },
  // Graph builders and the program runner are checked by running models in onnxruntime itself.
  ...['onnx', 'programs'].map((layer) => ({
    files: [`src/core/${layer}/**/*.test.ts`, `src/core/${layer}/testing.ts`],
    rules: coreLayer(layer, { runtimeAllowed: true }),
  })),
  {
    // A trained model's exported file is checked against Flowbench's own inference, in onnxruntime.
    files: ['src/core/nodes/model-*.test.ts'],
    rules: coreLayer('nodes', { runtimeAllowed: true }),
  },
  {
    files: ['src/db/**'],
    rules: forbid(uiFramework, runtime, uiCode, {
      group: ['**/workers/**'],
      message: 'db is shared; it imports no engine',
    }),
  },
  { files: ['workers/**'], rules: forbid(uiFramework, uiCode) },
  { files: ['src/ui/**', 'src/main.tsx'], rules: forbid(runtime, workerCode) },
  {
    files: ['**/*.test.ts', 'e2e/**'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    plugins: { flowbench: { rules: { 'no-import-cycle': noImportCycle } } },
    rules: { 'flowbench/no-import-cycle': 'error' },
  },
  {
    // Storage only through src/db's named queries, tests included. Its own rule, so the layer
    // blocks above (which set `no-restricted-imports`) cannot replace it.
    files: ['**/*.{ts,tsx,js,mjs}'],
    ignores: ['src/db/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['dexie', 'dexie/*', 'dexie-react-hooks', 'dexie-react-hooks/*'],
              message:
                'storage goes through src/db: use its named queries, and `live` reads with the UI hook `useLive`',
            },
          ],
        },
      ],
    },
  },
  {
    // ...and no reaching past those queries to the tables: a FlowbenchDb's tables are public
    // fields (Dexie declares them so), so lint stops `db.runs.get(…)` outside src/db.
    files: ['src/**/*.{ts,tsx}', 'workers/**/*.ts', 'bench/**/*.{ts,tsx}'],
    ignores: ['src/db/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['Identifier[name=/^db$|Db$/]', 'MemberExpression[property.name=/^db$|Db$/]'].map(
          (db) => ({
            selector: `MemberExpression[object.type=/Identifier|MemberExpression/][property.name=${storedTables}] > ${db}.object`,
            message: 'tables are read and written only in src/db: call its named queries',
          }),
        ),
      ],
    },
  },
);
