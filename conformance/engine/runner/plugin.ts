// What a plug-in adds to the checks without check() knowing it: copies of a check (the embedded run's variant
// deployments, variants.ts; the self-test's plan projects, conformance/selftest/copies.ts), where a copy sends its
// requests, and what becomes of a judged failure. A Playwright configuration installs its plug-ins when it loads, which
// it does in the runner and in every worker before any check file: the checks register under them.
import type { TestInfo } from '@playwright/test';
import type { TargetVariant } from './params.js';

/** Playwright's details of a test (tags, annotations), as check() builds them. */
export interface TestDetails {
  tag?: string | string[];
  annotation?: { type: string; description?: string } | { type: string; description?: string }[];
}

/** What a plug-in gets of one check: its own test, as check() registers it, and Playwright's `test` to register more. */
export interface CheckRegistration<Body> {
  readonly spec: { readonly id: string; readonly clauses: readonly string[]; readonly seed?: boolean };
  readonly title: string;
  readonly details: TestDetails;
  readonly run: Body;
  readonly test: {
    (title: string, details: TestDetails, body: Body): void;
    describe: ((title: string, callback: () => void) => void) & { configure(o: { mode: 'default' }): void };
  };
}

/** Where a test's requests go instead of the run's target. */
export type Route = { baseUrl: string; variant?: undefined } | { variant: TargetVariant; baseUrl?: undefined };

export interface CheckPlugin {
  /** Registers copies of the check; returns the details of the check's own test when they change (e.g. tagged out). */
  copies?<Body>(check: CheckRegistration<Body>): TestDetails | undefined;
  /** Where this test goes (undefined: not the plug-in's test); it may skip the test. */
  route?(info: TestInfo): Route | undefined;
  /** A judged failure of the test: true when the plug-in took it over (the test then passes and nothing else is written). */
  onFailure?(info: TestInfo, blamed: readonly string[]): boolean;
  /** False when the test running now must not record its cells of clause domains. */
  recordsCells?(): boolean;
}

// Kept on globalThis: a configuration and the check files are one module graph in a worker, but nothing here depends on it.
const KEY = Symbol.for('shop-conformance.check-plugins');
const registry = ((globalThis as Record<symbol, unknown>)[KEY] ??= []) as CheckPlugin[];

/** Installs a plug-in once (a configuration loaded twice installs it once). */
export function installCheckPlugin(plugin: CheckPlugin): void {
  if (!registry.includes(plugin)) registry.push(plugin);
}

export const checkPlugins = (): readonly CheckPlugin[] => registry;

/** The first plug-in's route of a test. */
export function routeOf(info: TestInfo): Route | undefined {
  for (const p of registry) {
    const route = p.route?.(info);
    if (route) return route;
  }
  return undefined;
}
