// Defects written blind (from the spec and the contract alone) as the yardstick of `explore`'s reach: each breaks one
// clause in a corner a search must reach to see it (a rarely sent operation, a caller kind on a route closed to it, a
// token shape, a body shape, a read after another caller's write, one flaw of a guest session, an invited-agent context or
// a DPoP proof). A list of its own: not in the self-test library (../index.ts).
import type { Defect } from '../types.js';
import { REACH_BODIES_DEFECTS } from './bodies.js';
import { REACH_CALLERS_DEFECTS } from './callers.js';
import { REACH_CONTEXTS_DEFECTS } from './contexts.js';
import { REACH_SESSIONS_DEFECTS } from './guest-sessions.js';
import { REACH_PROOFS_DEFECTS } from './proofs.js';
import { REACH_RARE_DEFECTS } from './rare-operations.js';
import { REACH_SHARED_DEFECTS } from './shared-account.js';
import { REACH_TOKENS_DEFECTS } from './tokens.js';

export const EXPLORE_REACH_DEFECTS: readonly Defect[] = [
  ...REACH_RARE_DEFECTS,
  ...REACH_CALLERS_DEFECTS,
  ...REACH_TOKENS_DEFECTS,
  ...REACH_BODIES_DEFECTS,
  ...REACH_SHARED_DEFECTS,
  ...REACH_SESSIONS_DEFECTS,
  ...REACH_CONTEXTS_DEFECTS,
  ...REACH_PROOFS_DEFECTS,
];
