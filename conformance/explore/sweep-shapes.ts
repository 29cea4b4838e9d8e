// The sweep of shapes (docs/explore.md, "The sweep first"): every single variation of each credential shape, once, as a
// sound caller of its kind on an operation that admits the kind (each caller's token per variation that applies to its
// kind, tokens-shape.ts; an assistant's proof, proofs-shape.ts; a guest's session, sessions-shape.ts; an invited agent's
// context, contexts-shape.ts), and every write's body replaced at the top by each kind of JSON value (null, a boolean, a
// number, a string, an array, an object; bodies-shape.ts). The random search draws these too, and their combinations;
// the sweep makes sure each lone variation is judged early in any run. The operation of each is drawn from the seed.
// Pure.
import type { CallerKind } from '../../contract/callers.js';
import { admittedKinds, COMMANDS, hasOwnCredential, isWrite, type Command } from './commands.js';
import type { BodyValue } from './bodies-shape.js';
import { CONTEXT_VARIATIONS, isMeaningfulContext, type ContextShape } from './contexts.js';
import { PROOF_VARIATIONS, type ProofShape } from './proofs.js';
import { isMeaningfulSession, SESSION_VARIATIONS, type SessionShape } from './sessions.js';
import { TOKEN_FIELDS, TOKEN_KINDS, variationsFor, type TokenShape } from './tokens.js';
import { isSound, kindOfCaller, type Caller, type PlanStep } from './plan.js';
import type { Variations } from './shapes.js';

/** The JSON values a body is replaced by at the top, one of each kind. */
const TOP_VALUES: readonly BodyValue[] = [
  { kind: 'null' },
  { kind: 'boolean', value: true },
  { kind: 'number', text: '0' },
  { kind: 'string', of: 'empty' },
  { kind: 'array', of: 'empty' },
  { kind: 'object', of: 'empty' },
];

/** The label a kind is swept as: its sound label of account a (or guest a), else any of its labels; sweep.ts's too. */
export function soundLabel(kind: string, callers: readonly Caller[]): Caller | undefined {
  if (kind === 'secret') return 'secret:own';
  const mine = callers.filter((c) => (kindOfCaller(c) ?? 'other') === kind);
  return mine.find((c) => isSound(c) && !c.endsWith(':b')) ?? mine[0];
}

/** The kinds a write's shaped bodies are sent as, the first the route admits. */
const BODY_KINDS = ['customer', 'delegated', 'guest', 'operator', 'assistant', 'invited-agent'] as const;

/** A deterministic draw from the seed (mulberry32). */
function drawer(seed: number): <T>(items: readonly T[]) => T {
  let a = seed >>> 0;
  return (items) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return items[((t ^ (t >>> 14)) >>> 0) % items.length]!;
  };
}

/** The operations a kind's credential shapes go to (as the search sends them: no conversation but for proofs). */
const operationsOf = (kind: CallerKind, conversations: boolean): Command[] =>
  COMMANDS.filter(
    (c) => c.kind === 'operation' && (conversations || c.group !== 'conversation') && (admittedKinds(c) as string[]).includes(kind),
  );

/** Every lone variation of each shape family, as plan steps, for the callers the profile lets `explore` send. */
export function shapeSweep(callers: readonly Caller[], seed: number): PlanStep[] {
  const draw = drawer(seed);
  const out: PlanStep[] = [];
  const step = (op: Command, caller: Caller, extra: Partial<PlanStep>) =>
    out.push({ op: op.id, caller, variant: 0, quantity: 1, ...extra });
  // A kind's sound label, if the profile lets `explore` send one.
  const label = (kind: string): Caller | undefined => {
    const l = soundLabel(kind, callers);
    return l !== undefined && isSound(l) ? l : undefined;
  };
  for (const kind of TOKEN_KINDS.filter((k) => label(k))) {
    const ops = operationsOf(kind, false);
    for (const field of TOKEN_FIELDS)
      for (const v of variationsFor(kind, field))
        step(draw(ops), label(kind)!, { mutation: 'token-shape', token: { [field]: v } as TokenShape });
  }
  // Each lone variation of a catalogue that means something on its own.
  const lone = <S extends object>(variations: Variations, keep: (shape: S) => boolean, send: (shape: S) => void) => {
    for (const [field, vs] of Object.entries(variations))
      for (const v of Object.keys(vs)) {
        const shape = { [field]: v } as S;
        if (keep(shape)) send(shape);
      }
  };
  const assistant = label('assistant');
  if (assistant) {
    const ops = operationsOf('assistant', true);
    lone<ProofShape>(
      PROOF_VARIATIONS,
      () => true,
      (proof) => step(draw(ops), assistant, { mutation: 'proof-shape', proof }),
    );
  }
  const guest = label('guest');
  if (guest) {
    const ops = operationsOf('guest', false);
    lone<SessionShape>(SESSION_VARIATIONS, isMeaningfulSession, (session) =>
      step(draw(ops), guest, { mutation: 'session-shape', session }),
    );
  }
  const invited = label('invited-agent');
  if (invited) {
    const ops = operationsOf('invited-agent', false);
    lone<ContextShape>(CONTEXT_VARIATIONS, isMeaningfulContext, (context) =>
      step(draw(ops), invited, { mutation: 'context-shape', context }),
    );
  }
  // Every write but a DELETE and the webhook (whose body is signed bytes), as the search shapes bodies, as a caller the
  // route admits.
  for (const c of COMMANDS.filter((x) => isWrite(x) && x.method !== 'DELETE' && x.kind !== 'webhook')) {
    const admitted = admittedKinds(c) as string[];
    const caller = hasOwnCredential(c.id)
      ? 'secret:own'
      : BODY_KINDS.filter((k) => admitted.includes(k))
          .map(label)
          .find(Boolean);
    if (caller === undefined) continue;
    for (const value of TOP_VALUES) step(c, caller, { mutation: 'body-shape', bodyShape: { steps: [{ op: 'top', value }] } });
  }
  return out;
}
