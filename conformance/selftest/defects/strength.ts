// Defects that prove the strengthened checks: each breaks its clause the way the weak form of a check let through.
import type { Defect } from './types.js';

export const STRENGTH_DEFECTS: readonly Defect[] = [];
