// @ts-check
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Imports a layer may not make (DESIGN.md, "Layers"). */
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
    },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['scripts/**', '*.config.*', 'eslint.config.js'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    files: ['src/core/**'],
    rules: forbid(uiFramework, storage, runtime, uiCode, {
      group: ['**/workers/**'],
      message: 'core depends on nothing',
    }),
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
    rules: {
      'no-restricted-imports': 'off',
      '@typescript-eslint/no-floating-promises': 'off',
    },
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
);
