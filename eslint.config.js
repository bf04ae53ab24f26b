// ESLint: typescript-eslint's recommended rules over the TypeScript of src/, jobs/, test/ and
// bench/ (run by `npm run typecheck`, so CI runs it). A rule is turned off or changed here only
// with the reason written beside it.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'bin/**', '**/*.mjs', '**/*.js'] },
  {
    files: ['src/**/*.ts', 'jobs/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'vitest.config.ts', 'vitest.quick.config.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A name starting with `_` is a place kept on purpose: a field taken out of an object so
      // that the rest is what is kept (`const { password: _p, ...rest } = options`), an array slot
      // skipped, or Express's four-argument error handler (Express knows it by its arity).
      '@typescript-eslint/no-unused-vars': ['error', {
        argsIgnorePattern: '^_',
        varsIgnorePattern: '^_',
        destructuredArrayIgnorePattern: '^_',
        caughtErrorsIgnorePattern: '^_',
      }],
      // The .xlsx writers and readers match the control characters XML 1.0 forbids, on purpose:
      // those are the characters they escape or refuse.
      'no-control-regex': 'off',
    },
  },
  {
    // No function of the product over 120 lines (ESLint's count: blank lines and comments
    // included): a longer one is split into named steps. Tests and benchmarks are exempt (a test's
    // body is its scenario).
    files: ['src/**/*.ts', 'jobs/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 120 }] },
  },
  {
    // The dashboard reads, matches and edits files through src/import-service/ only, never the
    // reading, mapping or ledger layers themselves (ARCHITECTURE.md, "The rule: imports point
    // down"): the import page cannot grow a reading rule of its own beside the CLI's.
    files: ['src/dashboard/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          group: ['**/tables', '**/tables/**', '**/mapping', '**/mapping/**', '**/ledger', '**/ledger/**'],
          message: 'src/dashboard/ reaches src/tables/, src/mapping/ and src/ledger/ through src/import-service/ only (ARCHITECTURE.md).',
        }],
      }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // Tests read JSON answers and then assert their shape field by field; `any` there is what
      // `Response.json()` gives, and a type written for each answer would assert nothing more.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
