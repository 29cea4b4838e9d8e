// Locates files shipped with the package, from source (tsx) and from dist/ alike.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findPackageRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`package.json not found above ${start}`);
    dir = up;
  }
  return dir;
}

export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
export const FIXTURE_PROFILE = join(PACKAGE_ROOT, 'fixtures', 'profile.json');
export const FIXTURE_SEED = join(PACKAGE_ROOT, 'fixtures', 'seed.json');
