// What every credential shape of `explore` shares (proofs-shape.ts, sessions-shape.ts, contexts-shape.ts): a catalogue
// of named variations per member, a shape holding at most one variation per member, the arbitrary that draws one
// variation most of the time and sometimes two or three (so that combinations are judged) or none, and the names a
// shape holds. Pure.
import fc from 'fast-check';

/** Per member, its variations by name, each with the label reports show. */
export type Variations = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** A shape of a catalogue: each member absent (as made) or the name of its variation. */
export type ShapeOf<V extends Variations> = { -readonly [F in keyof V]?: keyof V[F] & string };

/** The members of a catalogue, in its order. */
export const fieldsOf = <V extends Variations>(v: V): (keyof V & string)[] => Object.keys(v) as (keyof V & string)[];

/** Every `member:variation` name of a catalogue (what its arbitrary must reach). */
export const variationNames = (v: Variations): string[] => Object.keys(v).flatMap((f) => Object.keys(v[f]!).map((x) => `${f}:${x}`));

/** The `member:variation` names a shape holds, in the catalogue's order. */
export const namesOf = (v: Variations, shape: Readonly<Record<string, string | undefined>>): string[] =>
  Object.keys(v)
    .filter((f) => shape[f] !== undefined)
    .map((f) => `${f}:${String(shape[f])}`);

/**
 * Shapes of a catalogue: no variation (1 in 19), one (12), two (4) or three (2) of different members, kept in the
 * catalogue's order so that a shape reads (and compares) the same whatever order it was drawn in; `finish` turns a drawn
 * shape into what is sent (or drops it: undefined).
 */
export function shapeArbitrary<S extends object>(v: Variations, finish: (shape: S) => S | undefined): fc.Arbitrary<S> {
  const fields = Object.keys(v);
  const count = fc.oneof(
    { weight: 1, arbitrary: fc.constant(0) },
    { weight: 12, arbitrary: fc.constant(1) },
    { weight: 4, arbitrary: fc.constant(2) },
    { weight: 2, arbitrary: fc.constant(3) },
  );
  return count
    .chain((n) =>
      fc.shuffledSubarray(fields, { minLength: n, maxLength: n }).chain((chosen) =>
        fc.tuple(...chosen.map((f) => fc.constantFrom(...Object.keys(v[f]!)).map((x) => [f, x] as const))).map((pairs) => {
          const picked = new Map<string, string>(pairs);
          return finish(Object.fromEntries(fields.filter((f) => picked.has(f)).map((f) => [f, picked.get(f)])) as S);
        }),
      ),
    )
    .filter((s): s is S => s !== undefined);
}

/** `member: label, member: label` for a shape; `none` when it holds no variation. */
export function describeShape(
  v: Variations,
  shape: Readonly<Record<string, string | undefined>>,
  o: { none: string; labels?: Readonly<Record<string, string>> },
): string {
  const parts = Object.keys(v)
    .filter((f) => shape[f] !== undefined)
    .map((f) => `${o.labels?.[f] ?? f}: ${v[f]![shape[f]!] ?? shape[f]}`);
  return parts.length === 0 ? o.none : parts.join(', ');
}
