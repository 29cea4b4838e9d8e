// Writes the two description documents, as the reference serves them, to a folder (for linting and publishing).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../reference/src/config.js';
import { describeService } from '../reference/src/app.js';

const dir = resolve(process.argv[2] ?? '.tmp/openapi');
mkdirSync(dir, { recursive: true });
const config = loadConfig({ env: {} });
for (const which of ['general', 'assistant'] as const) {
  const file = join(dir, which === 'general' ? 'openapi.json' : 'assistant-openapi.json');
  writeFileSync(file, JSON.stringify(describeService(which, config.docsUrl), null, 2) + '\n');
  process.stdout.write(`${file}\n`);
}
