// Defects written from the spec alone by authors who do not read the checks (docs/self-test.md, "Blind authoring"): one
// file per spec part. Their survivors are findings for the checks' authors.
import { BLIND_AUTHENTICATION_DEFECTS } from './authentication.js';
import { BLIND_ENDPOINTS_DEFECTS } from './endpoints.js';
import { BLIND_ERRORS_DEFECTS } from './errors.js';
import { BLIND_LIMITS_DEFECTS } from './limits.js';
import { BLIND_PURPOSE_DEFECTS } from './purpose.js';
import { BLIND_RESOURCES_DEFECTS } from './resources.js';
import { BLIND_STATES_DEFECTS } from './states.js';
import { SPELLINGS_DEFECTS } from './spellings.js';
import { BLIND_STACKS_DEFECTS } from './stacks.js';
import { BLIND_VERSIONING_DEFECTS } from './versioning.js';
import type { Defect } from '../types.js';

export const BLIND_DEFECTS: readonly Defect[] = [
  ...BLIND_PURPOSE_DEFECTS,
  ...BLIND_RESOURCES_DEFECTS,
  ...BLIND_STATES_DEFECTS,
  ...BLIND_ENDPOINTS_DEFECTS,
  ...BLIND_AUTHENTICATION_DEFECTS,
  ...BLIND_ERRORS_DEFECTS,
  ...BLIND_LIMITS_DEFECTS,
  ...BLIND_VERSIONING_DEFECTS,
  ...SPELLINGS_DEFECTS,
  ...BLIND_STACKS_DEFECTS,
];
