// A reused Idempotency-Key with a different body (docs/explore.md, "Sequences"): a create of a row from free text
// (plan.ts REKEYED) sent with a key is sent again at once under the same key with another body, its longest text value
// changed. The spec says the key is accepted
// and ignored (PUR-IDEM-2): the second request is processed as itself, so a create must make a row of its own, never
// answer with the first one (model.ts judges an address answered for another body; an order answered twice). A body
// the deployment refuses once changed is no finding of this: only a 2xx is judged. Pure.

/** The JSON value with its longest string leaf (the likeliest free text: a street line, a note) changed. */
export function alterBody(json: unknown): unknown {
  let longest: { path: (string | number)[]; value: string } | undefined;
  const walk = (v: unknown, path: (string | number)[]) => {
    if (typeof v === 'string') {
      if (!longest || v.length > longest.value.length) longest = { path, value: v };
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(json, []);
  if (!longest) return json;
  const out = structuredClone(json);
  if (longest.path.length === 0) return `${longest.value} 2`;
  let at = out as Record<string | number, unknown>;
  for (const k of longest.path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  at[longest.path.at(-1)!] = `${longest.value} 2`;
  return out;
}
