// The self-test's defect library, one file per spec section or subsection (named as the checks' files are, NN-section.*),
// in the spec's order; the blind-written defects are a tree of their own (blind/). Every defect names a clause of the
// catalogue (test/unit/selftest/defects.test.ts); `TOOTHLESS` is for the self-test's own tests: it changes nothing, so it
// must survive. Each defect's rules carry its id as their label, which the proxy names when a rewrite throws.
import { PURPOSE_DEFECTS } from './01-purpose.js';
import { RESOURCES_DEFECTS } from './02-resources.js';
import { STATES_DEFECTS } from './03-states.js';
import { ENDPOINTS_DEFECTS } from './04-endpoints.js';
import { ENDPOINTS_CONVENTIONS_DEFECTS } from './04-endpoints.conventions.js';
import { ENDPOINTS_INTERNAL_DEFECTS } from './04-endpoints.internal.js';
import { ENDPOINTS_PUBLIC_ROUTES_DEFECTS } from './04-endpoints.public-routes.js';
import { ENDPOINTS_RECOVERY_DEFECTS } from './04-endpoints.recovery.js';
import { AUTHENTICATION_ASSISTANT_AUTHORITY_DEFECTS } from './05-authentication.assistant-authority.js';
import { AUTHENTICATION_CALLER_KINDS_DEFECTS } from './05-authentication.caller-kinds.js';
import { AUTHENTICATION_GUEST_SESSIONS_DEFECTS } from './05-authentication.guest-sessions.js';
import { AUTHENTICATION_INVITED_AGENTS_DEFECTS } from './05-authentication.invited-agents.js';
import { AUTHENTICATION_REQUEST_PROCESSING_DEFECTS } from './05-authentication.request-processing.js';
import { AUTHENTICATION_SCOPE_TRANSLATION_DEFECTS } from './05-authentication.scope-translation.js';
import { AUTHENTICATION_TOKEN_VERIFICATION_DEFECTS } from './05-authentication.token-verification.js';
import { EVENTS_DEFECTS } from './06-events.js';
import { ERRORS_DEFECTS } from './07-errors.js';
import { LIMITS_DEFECTS } from './08-limits.js';
import { VERSIONING_DEFECTS } from './09-versioning.js';
import { BLIND_DEFECTS } from './blind/index.js';
import { wire, type Defect } from './types.js';

export type { Defect, DefectContext } from './types.js';

/** The defect, its rules labelled with its id (the proxy's log names the defect whose rewrite threw). */
const labelled = (d: Defect): Defect => ({ ...d, rules: (ctx) => ({ ...d.rules(ctx), label: d.id }) });

export const DEFECTS: readonly Defect[] = [
  ...PURPOSE_DEFECTS,
  ...RESOURCES_DEFECTS,
  ...STATES_DEFECTS,
  ...ENDPOINTS_DEFECTS,
  ...ENDPOINTS_CONVENTIONS_DEFECTS,
  ...ENDPOINTS_PUBLIC_ROUTES_DEFECTS,
  ...ENDPOINTS_INTERNAL_DEFECTS,
  ...ENDPOINTS_RECOVERY_DEFECTS,
  ...AUTHENTICATION_TOKEN_VERIFICATION_DEFECTS,
  ...AUTHENTICATION_CALLER_KINDS_DEFECTS,
  ...AUTHENTICATION_GUEST_SESSIONS_DEFECTS,
  ...AUTHENTICATION_INVITED_AGENTS_DEFECTS,
  ...AUTHENTICATION_ASSISTANT_AUTHORITY_DEFECTS,
  ...AUTHENTICATION_SCOPE_TRANSLATION_DEFECTS,
  ...AUTHENTICATION_REQUEST_PROCESSING_DEFECTS,
  ...EVENTS_DEFECTS,
  ...ERRORS_DEFECTS,
  ...LIMITS_DEFECTS,
  ...VERSIONING_DEFECTS,
  ...BLIND_DEFECTS,
].map(labelled);

/** A defect that breaks nothing: whatever clause it names, the checks pass, so it survives (exit 1). */
export const toothless = (clause: string): Defect =>
  labelled(wire(`selftest.toothless.${clause}`, clause, 'changes nothing (a self-test of the self-test)', (a) => a));
