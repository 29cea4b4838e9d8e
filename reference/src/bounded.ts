// Bounded memory for what the reference remembers per token, key or read: when full, the oldest entry goes first (a Map
// keeps insertion order). Pure; never imports Express.

/** Sets `key` in `map`, first dropping the oldest entry when the map holds `max` others; returns `value`. */
export function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): V {
  if (map.size >= max && !map.has(key)) map.delete(map.keys().next().value!);
  map.set(key, value);
  return value;
}

/** A pure function of a string, computed once per argument (the last `max` arguments kept). */
export function memoize<V>(max: number, compute: (key: string) => V): (key: string) => V {
  const known = new Map<string, V>();
  return (key) => (known.has(key) ? known.get(key)! : remember(known, key, compute(key), max));
}
