// Both description documents, exactly as served, lint clean with @redocly/cli (recommended rules, warnings included).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bearer, startReference } from '../helpers/reference.js';

const require = createRequire(import.meta.url);
const pkg = require.resolve('@redocly/cli/package.json');
const bin = join(dirname(pkg), (require(pkg) as { bin: Record<string, string> }).bin.redocly!);

test('/openapi.json and /assistant/openapi.json lint clean with @redocly/cli', async () => {
  const h = await startReference();
  try {
    const dir = mkdtempSync(join(tmpdir(), 'shop-openapi-'));
    for (const path of ['/openapi.json', '/assistant/openapi.json']) {
      const res = await h.call(path, { headers: bearer('unused') });
      assert.equal(res.status, 200);
      const file = join(dir, path.replace(/\//g, '_').replace(/^_/, ''));
      writeFileSync(file, res.text);
      const lint = spawnSync(process.execPath, [bin, 'lint', file, '--max-problems', '50'], {
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      });
      const output = `${lint.stdout}\n${lint.stderr}`;
      assert.equal(lint.status, 0, output.slice(-4000));
      assert.doesNotMatch(output, /You have \d+ warnings?/, output.slice(-4000));
    }
  } finally {
    await h.close();
  }
});
