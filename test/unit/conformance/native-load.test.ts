// The built package's checks load natively in Playwright (conformance/engine/runner/native-load.ts); sources keep its ESM hook.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { playwrightEnv } from '../../../conformance/engine/runner/native-load.js';

test('a built configuration (.js) turns off Playwright’s ESM hook; a TypeScript one keeps it', () => {
  const env = { FOO: 'bar' };
  assert.deepEqual(playwrightEnv('/x/dist/conformance/playwright.config.js', env), { FOO: 'bar', PW_DISABLE_TS_ESM: '1' });
  assert.deepEqual(playwrightEnv('/x/conformance/playwright.config.ts', env), { FOO: 'bar' });
  assert.deepEqual(env, { FOO: 'bar' }, 'the given environment is not changed');
});

test('the installed Playwright Test still reads PW_DISABLE_TS_ESM before it registers its ESM hook', () => {
  const require = createRequire(import.meta.url);
  const lib = join(dirname(require.resolve('playwright/package.json')), 'lib', 'common', 'index.js');
  const source = readFileSync(lib, 'utf8');
  const register = source.indexOf('function registerESMLoader()');
  assert.ok(register >= 0, `${lib} no longer defines registerESMLoader`);
  assert.match(source.slice(register, register + 200), /if \(process\.env\.PW_DISABLE_TS_ESM\)\s*return;/);
});
