// The suite's version, from the package's own package.json (found from source and from dist/ alike).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function packageJson(): { version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string };
}

export const SUITE_VERSION = packageJson().version;
