// The published bin: the CommonJS entry (cli/bin.cjs, which tsc does not compile) beside the compiled CLI, both executable
// (tsc does not keep modes).
import { chmodSync, copyFileSync, existsSync } from 'node:fs';
const dist = new URL('../dist/cli/', import.meta.url);
if (existsSync(dist)) {
  copyFileSync(new URL('../cli/bin.cjs', import.meta.url), new URL('bin.cjs', dist));
  for (const file of ['bin.cjs', 'main.js']) chmodSync(new URL(file, dist), 0o755);
}
