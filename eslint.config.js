// Lint rules: the TypeScript rules that catch lost promises and dead code, and the import rules that encode the
// architecture (DEVELOPERS.md): the suite is a black box, the pure auth logic knows nothing of the pipeline or Express, and
// the suite's protocol library does not depend on its runner.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const restrict = (...patterns) => ['error', { patterns }];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'conformance-output/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test() and describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['test', 'describe', 'it', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      'no-empty': ['error', { allowEmptyCatch: true }],
      // a timer or handle read by a closure before the one assignment that creates it
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', process: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { URL: 'readonly', process: 'readonly', console: 'readonly' } },
  },
  {
    files: ['conformance/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict({
        group: ['**/reference/**'],
        message: 'The suite is a black box: it reaches a server over HTTP only (contract/ holds the shared data).',
      }),
    },
  },
  {
    files: ['conformance/lib/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        { group: ['**/reference/**'], message: 'The suite is a black box.' },
        { group: ['**/engine/**'], message: 'The protocol library does not depend on the runner (conformance/engine/).' },
      ),
    },
  },
  {
    files: ['reference/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict({
        group: ['**/conformance/**', '**/cli/**'],
        message: 'The reference knows nothing of the suite or the CLI (contract/ holds the shared data).',
      }),
    },
  },
  {
    files: ['reference/src/pipeline/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        { group: ['**/conformance/**', '**/cli/**'], message: 'The reference knows nothing of the suite or the CLI.' },
        {
          group: ['**/routes/**', './routes/*', '../routes/*'],
          message: 'The stages know no route: routes are rows the stage table runs (docs/pipeline.md).',
        },
      ),
    },
  },
  {
    files: ['reference/src/pipeline/context.ts'],
    rules: {
      'no-restricted-imports': restrict(
        { group: ['**/conformance/**', '**/cli/**'], message: 'The reference knows nothing of the suite or the CLI.' },
        { group: ['**/routes/**', './routes/*', '../routes/*'], message: 'The stages know no route (docs/pipeline.md).' },
        {
          group: ['**/admission/**'],
          message: "The context is the stages' shared shape: admission reads it, it does not read admission (no import loop).",
        },
      ),
    },
  },
  {
    files: ['conformance/engine/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        { group: ['**/reference/**'], message: 'The suite is a black box.' },
        {
          group: ['**/checks/**'],
          message: 'The runner does not depend on the checks it runs: check definitions live in conformance/checks/.',
        },
        {
          group: ['**/selftest/**'],
          message:
            'The self-test is a plug-in of the runner (conformance/selftest/copies.ts installs it, engine/runner/plugin.ts): the engine never imports it.',
        },
      ),
    },
  },
  {
    files: ['conformance/explore/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        { group: ['**/reference/**'], message: 'The suite is a black box.' },
        { group: ['**/checks/**'], message: 'explore builds on conformance/lib/ and conformance/rules/, never on the checks.' },
      ),
    },
  },
  {
    files: ['conformance/checks/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        { group: ['**/reference/**'], message: 'The suite is a black box.' },
        { group: ['**/selftest/**'], message: 'Checks know nothing of the self-test that judges them (its defects are written apart).' },
      ),
    },
  },
  {
    files: ['conformance/checks/*.check.ts'],
    rules: {
      'no-restricted-imports': restrict(
        { group: ['**/reference/**'], message: 'The suite is a black box.' },
        { group: ['**/selftest/**'], message: 'Checks know nothing of the self-test that judges them (its defects are written apart).' },
        {
          group: ['**/engine/transport/in-flight*'],
          importNames: ['CASES_AT_ONCE', 'mapConcurrent'],
          message: 'A check declares its cases; judgeCases and mapCases (engine/runner/cases.ts) run them.',
        },
      ),
    },
  },
  {
    files: ['reference/src/auth/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        { group: ['**/conformance/**', '**/cli/**'], message: 'The reference knows nothing of the suite or the CLI.' },
        { group: ['**/pipeline/**'], message: 'Token, challenge and guest-session logic is pure: the pipeline calls it, not the reverse.' },
        { group: ['express', 'express/*'], message: 'Auth logic is pure: no Express here.' },
      ),
    },
  },
  {
    files: ['contract/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict({
        group: ['**/reference/**', '**/conformance/**', '**/cli/**'],
        message: 'contract/ is data only.',
      }),
    },
  },
  {
    files: ['implementations/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict({
        group: ['**/reference/**', '**/conformance/**', '**/cli/**', '**/contract/**', 'express', 'express/*', 'better-sqlite3'],
        message:
          'An independent implementation is written from the spec and the public docs alone, in another stack (docs/implementations.md).',
      }),
    },
  },
);
