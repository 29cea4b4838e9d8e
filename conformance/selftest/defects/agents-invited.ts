// Defects of the invited-agent clauses of spec part 5 (Authentication): each breaks one clause subtly, as data.
import type { Defect } from './types.js';

export const AGENTS_INVITED_DEFECTS: readonly Defect[] = [];
