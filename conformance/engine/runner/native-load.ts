// How Playwright loads the checks. From TypeScript sources it needs its ESM hook, which on Node 20 runs in a loader
// thread and sends every module through it (a Babel transform, or its cache). The built package's checks are plain
// ES modules (dist/**/*.js, with their source maps): Node loads them itself, and Playwright starts its runner and each
// worker about a second sooner on two cores. Test locations stay the same (source maps).
//
// `PW_DISABLE_TS_ESM` is Playwright Test's own switch for this (playwright/lib/common/index.js, registerESMLoader).

/** The environment of a Playwright process whose configuration is `config`: native loading when it is built JavaScript. */
export function playwrightEnv(config: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return config.endsWith('.js') ? { ...env, PW_DISABLE_TS_ESM: '1' } : env;
}
