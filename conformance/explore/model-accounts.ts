// The model's account data across callers (docs/explore.md, "What is compared"): an account's data is one, whoever of
// its callers reads or writes it (PUR-SERVE-4: the customer, its delegated agent, an invited agent, its assistant). An
// address one caller added is listed for every other caller of the account, until deleted; an order placed by one is
// served by id to every other (the Location of a row, to every caller that may read it: readers.ts). Pure: it
// reads the model's state (model.ts) and moves its address book on.
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import type { Answer, Finding, Step } from './exchange.js';
import type { Account, ModelState } from './model.js';
import { mayHaveMore } from './model-knows.js';
import { isSound, ownerOf, type PlanStep } from './plan.js';

const is2xx = (s: number) => s >= 200 && s < 300;
const accountOf = (caller: string): Account | undefined => /^account:([ab])$/.exec(ownerOf(caller) ?? '')?.[1] as Account | undefined;
const lastSegment = (path: string) => decodeURIComponent(path.split('?')[0]!.split('/').filter(Boolean).pop() ?? '');

function finding(index: number, clauses: string[], message: string, expected: unknown, actual: unknown): Finding {
  return { oracle: 'model', clauses, message, index, expected, actual };
}

/** Judges one answer on the account's shared data and moves the address book on. */
export function judgeAccountData(
  m: ModelState,
  p: PlanStep,
  step: Step,
  answer: Answer,
  o: { index: number; created?: string | undefined; foreign?: readonly string[] },
): Finding[] {
  // A delete that succeeded, whoever sent it and however (a mutated one the target took), leaves the address out.
  if (p.op === 'deleteAddress' && is2xx(answer.status)) {
    const id = lastSegment(step.path);
    for (const a of ['a', 'b'] as const) m.addresses[a] = m.addresses[a].filter((x) => x !== id);
  }
  const account = accountOf(p.caller);
  if (account === undefined || !isSound(p.caller) || p.mutation !== undefined) return [];
  const other: Account = account === 'a' ? 'b' : 'a';
  const out: Finding[] = [];
  const { index } = o;
  // END-ME-1 on every account read: another account's rows (its fixture address and card, what it made in this
  // sequence) never show, matched as whole ids (`addr_1` is not in `addr_10`).
  if (is2xx(answer.status) && OPERATIONS_BY_ID.get(p.op)?.path.startsWith('/v1/me')) {
    for (const id of new Set([...(o.foreign ?? []), ...m.orders[other], ...m.addresses[other]]))
      if (new RegExp(`(?<![\\w-])${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`).test(answer.text))
        out.push(finding(index, ['END-ME-1'], `${p.op} as ${p.caller} shows another account's row (${id})`, 'absent', id));
  }
  switch (p.op) {
    case 'addAddress':
      if (is2xx(answer.status) && o.created !== undefined) m.addresses[account].push(o.created);
      break;
    case 'listAddresses': {
      if (!is2xx(answer.status)) break;
      // Only an answer that shows the whole list is judged for presence (pagination and order are not shown).
      for (const id of mayHaveMore(answer) ? [] : m.addresses[account])
        if (!answer.text.includes(id))
          out.push(
            finding(
              index,
              ['PUR-SERVE-4', 'END-OPS-LISTADDRESSES-1'],
              `an address this account added in this sequence (${id}) is missing from listAddresses as ${p.caller}`,
              id,
              'absent',
            ),
          );
      break;
    }
    case 'getOrder': {
      const id = lastSegment(step.path);
      if (m.orders[account].includes(id) && !is2xx(answer.status))
        out.push(
          finding(
            index,
            ['PUR-SERVE-4', 'END-OPS-GETORDER-1'],
            `an order this account placed in this sequence (${id}) is not served to ${p.caller}`,
            '2xx',
            answer.status,
          ),
        );
      break;
    }
    default:
      break;
  }
  return out;
}
