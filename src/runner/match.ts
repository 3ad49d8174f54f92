/**
 * The `expect` rule of scenario steps (docs/run.md: "every key given must match (objects
 * partially, deep)"): an expected object matches when each of its keys matches the actual value's;
 * an array matches an array of the same length element by element; anything else by equality.
 */
export interface Mismatch {
  /** Where the first difference is, from the compared root (`body.card.number`, `items[2]`). */
  path: string;
  expected: unknown;
  actual: unknown;
}

const join = (path: string, key: string | number) =>
  typeof key === "number"
    ? `${path}[${key}]`
    : /^[A-Za-z_$][\w$]*$/.test(key)
      ? `${path}.${key}`
      : `${path}[${JSON.stringify(key)}]`;

/** The first difference between an expectation and an actual value, or undefined when it matches. */
export function mismatch(expected: unknown, actual: unknown, path: string): Mismatch | undefined {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return { path, expected, actual };
    for (let i = 0; i < expected.length; i++) {
      const m = mismatch(expected[i], actual[i], join(path, i));
      if (m) return m;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return { path, expected, actual };
    for (const [k, v] of Object.entries(expected)) {
      const m = mismatch(v, (actual as Record<string, unknown>)[k], join(path, k));
      if (m) return m;
    }
    return undefined;
  }
  return Object.is(expected, actual) || expected === actual ? undefined : { path, expected, actual };
}
