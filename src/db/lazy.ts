/**
 * A prepared statement made on first use. Every sandbox is one more composition of the service
 * graph (docs/parallel-suites.md), and building each of its ~25 drizzle statements (SQL text, then SQLite's
 * prepare) at construction was most of what creating a sandbox cost; a test sandbox uses a few.
 * The proxy hands out the real statement's methods, bound once each: a call costs a property read.
 */
export function lazy<T extends object>(make: () => T): T {
  let real: T | undefined;
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy({} as T, {
    get(_target, key) {
      let value = bound.get(key);
      if (value === undefined) {
        real ??= make();
        const raw: unknown = Reflect.get(real, key, real);
        value = typeof raw === "function" ? raw.bind(real) : raw;
        bound.set(key, value);
      }
      return value;
    },
  });
}
