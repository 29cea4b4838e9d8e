// The self-test's defect library, one file per spec part. Every defect names a clause of the catalogue
// (test/selftest/defects.test.ts); `TOOTHLESS` is for the self-test's own tests: it changes nothing, so it must survive.
import { AGENTS_ASSISTANT_DEFECTS } from './agents-assistant.js';
import { AGENTS_INVITED_DEFECTS } from './agents-invited.js';
import { AUTHENTICATION_DEFECTS } from './authentication.js';
import { BLIND_DEFECTS } from './blind/index.js';
import { CALLERS_DEFECTS } from './callers.js';
import { ENDPOINTS_DEFECTS } from './endpoints.js';
import { ERRORS_DEFECTS } from './errors.js';
import { KINDS_DEFECTS } from './kinds.js';
import { LIMITS_DEFECTS } from './limits.js';
import { PURPOSE_DEFECTS } from './purpose.js';
import { REFUSALS_DEFECTS } from './refusals.js';
import { RESOURCES_DEFECTS } from './resources.js';
import { INTERNAL_DEFECTS } from './internal.js';
import { ROUTES_DEFECTS } from './routes.js';
import { STRENGTH_DEFECTS } from './strength.js';
import { wire, type Defect } from './types.js';

export type { Defect, DefectContext } from './types.js';

export const DEFECTS: readonly Defect[] = [
  ...PURPOSE_DEFECTS,
  ...RESOURCES_DEFECTS,
  ...ENDPOINTS_DEFECTS,
  ...ROUTES_DEFECTS,
  ...INTERNAL_DEFECTS,
  ...AUTHENTICATION_DEFECTS,
  ...CALLERS_DEFECTS,
  ...ERRORS_DEFECTS,
  ...LIMITS_DEFECTS,
  ...REFUSALS_DEFECTS,
  ...KINDS_DEFECTS,
  ...AGENTS_INVITED_DEFECTS,
  ...AGENTS_ASSISTANT_DEFECTS,
  ...STRENGTH_DEFECTS,
  ...BLIND_DEFECTS,
];

/** A defect that breaks nothing: whatever clause it names, the checks pass, so it survives (exit 1). */
export const toothless = (clause: string): Defect =>
  wire(`selftest.toothless.${clause}`, clause, 'changes nothing (a self-test of the self-test)', (a) => a);
