// The rules of the spec's Resources part judged on more than one exchange: the problem document's `title` (Resources >
// Problem document), judged on every failure a check expects, every failure a gathering check sees, and every answer
// `explore` gets. The other members' conditions are lib/expect/problem.ts.
import { REGISTERED_REASON_PHRASES } from '../../contract/errors.js';
import { enforce, type Enforcement, type Rule } from './rule.js';

/** An answer as the title rule reads it: its status, the reason phrase of its status line, its problem document. */
export interface Titled {
  res: { status: number; reason?: string | undefined };
  doc: Record<string, unknown>;
}

const norm = (t: string) => t.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * The titles accepted for an answer: every phrase registered for the status (REGISTERED_REASON_PHRASES), and the reason
 * phrase of the answer's own status line when it is another; empty for a status with no registered phrase.
 */
export function acceptedTitles(res: Titled['res']): string[] {
  const registered = REGISTERED_REASON_PHRASES[res.status] ?? [];
  const own = res.reason?.trim() && !registered.some((p) => norm(p) === norm(res.reason!)) ? [res.reason.trim()] : [];
  return [...registered, ...own];
}

/**
 * RES-PROBLEM-4, `title` is the "HTTP reason phrase of the status": any phrase registered for the status in RFC 9110 or the
 * RFCs it obsoletes ("Payload Too Large" and "Content Too Large" alike), or the reason phrase of the response's own status
 * line; for a status with no registered phrase, any non-empty string. Case and surrounding spaces aside: the phrase is
 * informative (RFC 9112 section 4), the spec names no edition (docs/ambiguities.md, 8).
 */
export const PROBLEM_TITLE: Rule<Titled> = {
  name: 'the problem title is a reason phrase of the status',
  clause: 'RES-PROBLEM-4',
  section: 'Resources > Problem document',
  scope: { route: 'every', caller: 'every', status: 'every failure (400 or above)', request: 'any request' },
  applies: () => true,
  judge({ res, doc }) {
    const accepted = acceptedTitles(res);
    const ok =
      typeof doc.title === 'string' &&
      (accepted.length === 0 ? doc.title.trim() !== '' : accepted.some((phrase) => norm(phrase) === norm(doc.title as string)));
    if (ok) return undefined;
    return {
      what: 'problem "title" (a reason phrase of the status)',
      expected:
        accepted.length === 0
          ? 'a non-empty string'
          : accepted.length === 1
            ? accepted[0]
            : `one of ${accepted.map((p) => JSON.stringify(p)).join(', ')}`,
      actual: doc.title,
    };
  },
};

/** The title rule on one problem document (lib/expect/problem.ts composes it with the other members). */
export function expectTitle(res: Titled['res'], doc: Record<string, unknown>, o: Enforcement = {}): void {
  enforce(PROBLEM_TITLE, { res, doc }, o);
}
