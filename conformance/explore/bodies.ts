// Body shapes for `explore`: generated request bodies beyond the target's own documents and the fixed mutations of
// world.ts. A shape is symbolic and JSON-serialisable (it is stored in replay files): it names what to do to a valid body
// (replace the whole of it or one member, drop or add or duplicate a member, nest deeply, pad to the size cap, add
// whitespace or a BOM, break the JSON), never the bytes, so one shape resolves on any deployment's body.
// The shapes' types are in bodies-shape.ts; applyBodyShape (bodies-apply.ts) turns a shape and a valid body into the body
// as sent; expectedOfBody (bodies-expect.ts) says from the spec alone what must be answered to it. This file is the
// entry: it re-exports them, and holds the arbitrary and the one-line descriptions.
import fc from 'fast-check';
import {
  BAD_TOKENS,
  BREAKS,
  DEPTHS,
  LONG_LENGTHS,
  NUMBER_TEXTS,
  SIZE_BYTES,
  SIZES,
  SPACE_PLACES,
  STRING_KINDS,
  UNKNOWN_NAMES,
  WHITESPACES,
  type BodyShape,
  type BodyStep,
  type BodyValue,
} from './bodies-shape.js';

export * from './bodies-shape.js';
export { applyBodyShape } from './bodies-apply.js';
export { expectedOfBody, type BodyExpectation, type BodyRoute } from './bodies-expect.js';

// --- the arbitrary ---------------------------------------------------------------------------------------------------------

const valueArbitrary: fc.Arbitrary<BodyValue> = fc.oneof(
  fc.constant({ kind: 'null' } as const),
  fc.boolean().map((value) => ({ kind: 'boolean', value }) as const),
  fc.constantFrom(...NUMBER_TEXTS).map((text) => ({ kind: 'number', text }) as const),
  fc.constantFrom(...STRING_KINDS).map((of) => ({ kind: 'string', of }) as const),
  fc.constantFrom(...LONG_LENGTHS).map((length) => ({ kind: 'long-string', length }) as const),
  fc.constant({ kind: 'swap' } as const),
  fc.constantFrom('empty', 'wrap' as const).map((of) => ({ kind: 'array', of }) as const),
  fc.constantFrom('empty', 'wrap' as const).map((of) => ({ kind: 'object', of }) as const),
  fc
    .record({ container: fc.constantFrom('array', 'object' as const), depth: fc.constantFrom(...DEPTHS) })
    .map(({ container, depth }) => ({ kind: 'deep', container, depth }) as const),
  fc.constantFrom(...BAD_TOKENS).map((token) => ({ kind: 'bad-token', token }) as const),
);

const index = fc.nat({ max: 15 });

const stepArbitrary: fc.Arbitrary<BodyStep> = fc.oneof(
  // A body that is no object at all (null, an array, a number) comes often: a handler that reads members of it fails.
  { weight: 5, arbitrary: valueArbitrary.map((value) => ({ op: 'top', value }) as const) },
  { weight: 5, arbitrary: fc.record({ index, value: valueArbitrary }).map((s) => ({ op: 'member', ...s }) as const) },
  { weight: 1, arbitrary: index.map((i) => ({ op: 'drop', index: i }) as const) },
  { weight: 2, arbitrary: index.map((i) => ({ op: 'recase', index: i }) as const) },
  {
    weight: 2,
    arbitrary: fc.record({ name: fc.constantFrom(...UNKNOWN_NAMES), value: valueArbitrary }).map((s) => ({ op: 'unknown', ...s }) as const),
  },
  { weight: 2, arbitrary: fc.record({ index, value: valueArbitrary }).map((s) => ({ op: 'duplicate', ...s }) as const) },
  { weight: 1, arbitrary: fc.constantFrom(...SIZES).map((bytes) => ({ op: 'size', bytes }) as const) },
  {
    weight: 2,
    arbitrary: fc
      .record({ ws: fc.constantFrom(...WHITESPACES), where: fc.constantFrom(...SPACE_PLACES) })
      .map((s) => ({ op: 'space', ...s }) as const),
  },
  { weight: 1, arbitrary: fc.constantFrom(...BREAKS).map((how) => ({ op: 'broken', how }) as const) },
);

/** Body shapes: one step (three times in four) or a combination of two. */
export function bodyShapeArbitrary(): fc.Arbitrary<BodyShape> {
  return fc.oneof(
    { weight: 3, arbitrary: stepArbitrary.map((s) => ({ steps: [s] })) },
    { weight: 1, arbitrary: fc.tuple(stepArbitrary, stepArbitrary).map(([a, b]) => ({ steps: [a, b] })) },
  );
}

// --- variations and descriptions -------------------------------------------------------------------------------------------

const valueVariation = (v: BodyValue): string => {
  switch (v.kind) {
    case 'null':
    case 'swap':
      return `value:${v.kind}`;
    case 'boolean':
      return `value:boolean:${v.value}`;
    case 'number':
      return `value:number:${v.text}`;
    case 'string':
    case 'array':
    case 'object':
      return `value:${v.kind}:${v.of}`;
    case 'long-string':
      return `value:long-string:${v.length}`;
    case 'deep':
      return `value:deep:${v.container}:${v.depth}`;
    case 'bad-token':
      return `value:bad-token:${v.token}`;
  }
};

/** The variations a shape exercises (for coverage: every one of BODY_VARIATIONS is reachable by the arbitrary). */
export function variationsOf(shape: BodyShape): string[] {
  const out = new Set<string>(shape.steps.length > 1 ? ['combination'] : []);
  for (const s of shape.steps) {
    out.add(`op:${s.op}`);
    if ('value' in s) out.add(valueVariation(s.value));
    if (s.op === 'unknown') out.add(`unknown:${s.name}`);
    if (s.op === 'size') out.add(`size:${s.bytes}`);
    if (s.op === 'space') out.add(`space:${s.ws}:${s.where}`);
    if (s.op === 'broken') out.add(`broken:${s.how}`);
  }
  return [...out];
}

/** Every variation the arbitrary can reach. */
export const BODY_VARIATIONS: readonly string[] = [
  'combination',
  ...['top', 'member', 'drop', 'recase', 'unknown', 'duplicate', 'size', 'space', 'broken'].map((op) => `op:${op}`),
  'value:null',
  'value:swap',
  'value:boolean:true',
  'value:boolean:false',
  ...NUMBER_TEXTS.map((t) => `value:number:${t}`),
  ...STRING_KINDS.map((k) => `value:string:${k}`),
  ...LONG_LENGTHS.map((n) => `value:long-string:${n}`),
  ...['array', 'object'].flatMap((k) => ['empty', 'wrap'].map((of) => `value:${k}:${of}`)),
  ...['array', 'object'].flatMap((c) => DEPTHS.map((d) => `value:deep:${c}:${d}`)),
  ...BAD_TOKENS.map((t) => `value:bad-token:${t}`),
  ...UNKNOWN_NAMES.map((n) => `unknown:${n}`),
  ...SIZES.map((s) => `size:${s}`),
  ...WHITESPACES.flatMap((w) => SPACE_PLACES.map((p) => `space:${w}:${p}`)),
  ...BREAKS.map((b) => `broken:${b}`),
];

const describeValue = (v: BodyValue): string => {
  switch (v.kind) {
    case 'null':
      return 'null';
    case 'boolean':
      return String(v.value);
    case 'number':
      return v.text;
    case 'string':
      return v.of === 'empty' ? '""' : `a ${v.of} string`;
    case 'long-string':
      return `a string of ${v.length} characters`;
    case 'swap':
      return 'its number/string swap';
    case 'array':
      return v.of === 'empty' ? '[]' : '[it]';
    case 'object':
      return v.of === 'empty' ? '{}' : '{"value": it}';
    case 'deep':
      return `${v.depth} nested ${v.container}s`;
    case 'bad-token':
      return `the token ${v.token}`;
  }
};

const describeStep = (s: BodyStep): string => {
  switch (s.op) {
    case 'top':
      return `body = ${describeValue(s.value)}`;
    case 'member':
      return `member #${s.index} = ${describeValue(s.value)}`;
    case 'drop':
      return `member #${s.index} dropped`;
    case 'recase':
      return `member #${s.index} renamed in another case`;
    case 'unknown':
      return `added member ${JSON.stringify(s.name)} = ${describeValue(s.value)}`;
    case 'duplicate':
      return `member #${s.index} written again = ${describeValue(s.value)}`;
    case 'size':
      return `padded to ${SIZE_BYTES[s.bytes]} bytes (${s.bytes})`;
    case 'space':
      return `${s.ws} whitespace ${s.where === 'inside' ? 'between tokens' : s.where === 'lead' ? 'before' : 'after'}`;
    case 'broken':
      return `JSON broken (${s.how})`;
  }
};

/** One short line for reports. */
export function describeBody(shape: BodyShape): string {
  return shape.steps.length === 0 ? 'the valid body' : shape.steps.map(describeStep).join(' + ');
}
