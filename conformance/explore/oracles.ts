// The oracles beside the model, wired for the runner and the reports: the differential comparison of spec-pinned
// projections (projection.ts), the target's own description documents (schema-oracle.ts), and a finding's curl script
// (curl-script.ts), whose callers are this runner's labels (plan.ts) read as the CLI's `token` options.
import type { Profile } from '../../contract/profile.js';
import { renderCurlScript, type CallerPlan } from './curl-script.js';
import type { Step } from './exchange.js';
import { compareProjections } from './projection.js';
import type { Oracles } from './runner.js';
import { createSchemaOracle } from './schema-oracle.js';
import { fixtureOf } from './world.js';
import { proofDefectOf } from './plan.js';

export function exploreOracles(): Oracles {
  return { differential: compareProjections, schema: createSchemaOracle };
}

/** An invited-agent context issued and expired long ago (its admission snapshot too). */
const EXPIRED_CONTEXT = [
  '--context-claim',
  'iat=1000000000',
  '--context-claim',
  'exp=1000000300',
  '--context-claim',
  'admitted_at=1000000000',
];

/** The proof defects the `dpop` command's options can make. */
const CLI_PROOF_DEFECTS = ['none', 'wrong-htm', 'wrong-htu', 'no-ath', 'bad-ath', 'bad-nonce', 'wrong-key'] as const;
type CliProofDefect = (typeof CLI_PROOF_DEFECTS)[number];

/** How each caller of plan.ts is minted by the CLI (`token <kind> --sub …`), and the defects applied after. */
export function curlCaller(profile: Profile): (caller: string) => CallerPlan {
  const { accounts } = fixtureOf(profile);
  const sub = (caller: string) => ['--sub', caller.endsWith(':b') ? accounts.b.sub : accounts.a.sub];
  return (caller) => {
    switch (caller) {
      case 'customer:a':
      case 'customer:b':
      case 'delegated:a':
      case 'delegated:b':
        return { kind: caller.startsWith('customer') ? 'customer' : 'delegated', args: sub(caller), identity: caller };
      case 'guest:a':
      case 'guest:b':
        return { kind: 'guest', args: [], identity: caller };
      case 'guest:no-session':
        return { kind: 'guest', args: ['--no-session'], identity: caller };
      case 'guest:forged-session':
        return { kind: 'guest', args: [], identity: caller, tamper: 'guest-session' };
      case 'customer:expired':
        return { kind: 'customer', args: [...sub('customer:a'), '--expires-in', '-60'], identity: caller };
      case 'operator':
        return { kind: 'operator', args: [], identity: caller };
      case 'anonymous':
        return { kind: null, args: [], identity: 'none' };
      case 'invited:a':
      case 'invited:b':
        return { kind: 'invited-agent', args: sub(caller), identity: caller };
      case 'invited:expired-context':
        return { kind: 'invited-agent', args: [...sub('invited:a'), ...EXPIRED_CONTEXT], identity: caller };
      case 'invited:forged-context':
        return { kind: 'invited-agent', args: sub('invited:a'), identity: caller, tamper: 'artifact-signature' };
      case 'invited:wrong-audience':
        return { kind: 'invited-agent', args: [...sub('invited:a'), '--claim', 'aud=https://elsewhere.invalid'], identity: caller };
      case 'forwarder:no-artifact':
        return { kind: 'invited-agent', args: sub('invited:a'), identity: caller, tamper: 'drop-artifact' };
      case 'assistant:a':
      case 'assistant:b':
        return { kind: 'assistant', args: sub(caller), identity: caller };
      case 'assistant:expired':
        return { kind: 'assistant', args: [...sub('assistant:a'), '--expires-in', '-600'], identity: caller };
      case 'assistant:bearer':
        return { kind: 'assistant', args: sub('assistant:a'), identity: 'assistant:a', proof: 'bearer' };
      case 'assistant:proof-replay':
        return { kind: 'assistant', args: sub('assistant:a'), identity: 'assistant:a', tamper: 'replay-proof' };
      default: {
        // A budget attempt of the interleavings (interleave-callers.ts): one guest, its session kept across its requests.
        if (caller.startsWith('guest#')) return { kind: 'guest', args: [], identity: caller };
        // A proof defect of account a's assistant session, made with the `dpop` command's options where it has them (a
        // proof dated an hour off is not: such a step is sent without credentials, with a comment saying so).
        const defect = proofDefectOf(caller);
        if (defect && (CLI_PROOF_DEFECTS as readonly string[]).includes(defect))
          return { kind: 'assistant', args: sub('assistant:a'), identity: 'assistant:a', proof: defect as CliProofDefect };
        return { kind: null, args: [], identity: caller, unknown: caller };
      }
    }
  };
}

/** The finding's requests as a bash script of curl commands, credentials minted afresh when it runs. */
export function curlScriptOf(
  steps: Step[],
  o: { baseUrl: string; profile: Profile; profilePath?: string; title?: string; parallel?: number[][] | undefined },
): string {
  return renderCurlScript(steps, {
    ...(o.parallel ? { parallel: o.parallel } : {}),
    baseUrl: o.baseUrl,
    ...(o.profilePath ? { profilePath: o.profilePath } : {}),
    planCaller: curlCaller(o.profile),
    ...(o.title ? { title: o.title } : {}),
  });
}
