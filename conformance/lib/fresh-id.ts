// Ids no other check, worker or run uses: checks that write never share state, and ids of rows that exist nowhere.
import { randomUUID } from 'node:crypto';

/** 32 random hex digits. */
export const freshHex = (): string => randomUUID().replace(/-/g, '');

/** `<prefix>_<32 random hex digits>`. */
export const freshId = (prefix: string): string => `${prefix}_${freshHex()}`;
