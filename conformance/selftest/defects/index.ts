// The defect library of `shop-conformance self-test`, by spec part. Every check ships with a defect that it kills
// (docs/self-test.md): add the defect here, in the file of the clause's part.
import type { Defect } from '../defect.js';
import { AUTHENTICATION_DEFECTS } from './authentication.js';
import { ENDPOINT_DEFECTS } from './endpoints.js';
import { ERROR_DEFECTS } from './errors.js';
import { EVENT_AND_LIMIT_DEFECTS } from './events-limits.js';
import { PURPOSE_DEFECTS } from './purpose.js';
import { RESOURCE_DEFECTS } from './resources.js';

export const DEFECTS: readonly Defect[] = [
  ...PURPOSE_DEFECTS,
  ...RESOURCE_DEFECTS,
  ...ENDPOINT_DEFECTS,
  ...AUTHENTICATION_DEFECTS,
  ...EVENT_AND_LIMIT_DEFECTS,
  ...ERROR_DEFECTS,
];
