// What a check reports, as data: the verdict and each failure (clause, expected, actual, the exchange of the transcript it
// was judged on), carried from the worker to the reporters in one JSON annotation. The one encoder and the one decoder;
// no reporter reads a failure's human text back.
import { CheckFailure } from '../../lib/assert.js';
import type { Verdict } from '../runner/judge.js';

/** The annotation type that carries a check's record. */
export const RECORD_ANNOTATION = 'conformance-record';

export interface FailureRecord {
  /** The clauses the failed expectation names (empty: it named none). */
  clauses: string[];
  /** What was looked at. */
  what: string;
  expected: unknown;
  actual: unknown;
  /** The failure as one line of text (several where a failure lists several), credentials redacted. */
  message: string;
  /** The target refused the setup of a claimed capability. */
  setup?: true;
  /** The number (from 1) of the transcript's exchange judged last before the failure; absent: before any exchange. */
  exchange?: number;
}

export interface CheckRecord {
  outcome: Verdict['outcome'];
  blamed: string[];
  completed: boolean;
  setup: boolean;
  failures: FailureRecord[];
}

export function encodeRecord(record: CheckRecord): { type: string; description: string } {
  return { type: RECORD_ANNOTATION, description: JSON.stringify(record) };
}

/** The record among a test's annotations (a test case and its result may both show it), or undefined. */
export function decodeRecord(annotations: readonly { type: string; description?: string | undefined }[]): CheckRecord | undefined {
  const found = annotations.find((a) => a.type === RECORD_ANNOTATION);
  if (found?.description === undefined) return undefined;
  const record = JSON.parse(found.description) as CheckRecord;
  if (!['passed', 'failed', 'warning'].includes(record.outcome) || !Array.isArray(record.blamed) || !Array.isArray(record.failures))
    throw new Error(`malformed ${RECORD_ANNOTATION} annotation: ${found.description.slice(0, 200)}`);
  return record;
}

/** The first line of the record's first failure: a check's reason in the report. */
export const firstLine = (record: CheckRecord): string | undefined => record.failures[0]?.message.split('\n')[0];

export type Redact = (name: string | null, value: string) => string;

/** A value of a failure with credentials redacted like the transcript's (a value that is not JSON becomes its text). */
function redactValue(value: unknown, redact: Redact): unknown {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return redact(null, value);
  try {
    return JSON.parse(redact(null, JSON.stringify(value))) as unknown;
  } catch {
    return redact(null, String(value));
  }
}

/** A thrown or recorded failure as a record; anything else thrown (a crash of the check) names no clause. */
export function recordOf(err: unknown, redact: Redact, exchanges: number): FailureRecord {
  if (err instanceof CheckFailure) {
    const at = err.exchange ?? exchanges;
    return {
      clauses: [...err.clauses],
      what: redact(null, err.what),
      expected: redactValue(err.expected, redact),
      actual: redactValue(err.actual, redact),
      message: redact(null, err.message),
      ...(err.setup ? { setup: true as const } : {}),
      ...(at > 0 ? { exchange: at } : {}),
    };
  }
  const message = redact(null, err instanceof Error ? err.message : String(err));
  return { clauses: [], what: message, expected: undefined, actual: undefined, message, ...(exchanges > 0 ? { exchange: exchanges } : {}) };
}
