export { CLAUSES, CLAUSES_BY_ID, PART_PREFIX } from './catalogue.js';
export type { Clause, SpecPart } from './catalogue.js';
