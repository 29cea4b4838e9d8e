// tsc never deletes outputs of removed sources: start every build from an empty dist/.
import { rmSync } from 'node:fs';
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
