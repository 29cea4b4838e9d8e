// Where the suite's Playwright Test lives: its CLI and the suite's configuration, for `run` and `report merge`.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

export const PLAYWRIGHT_CLI = createRequire(import.meta.url).resolve('@playwright/test/cli');
export const SUITE_CONFIG = resolve(here, '..', 'conformance', `playwright.config.${ext}`);
