/**
 * Random damage to a valid JSON body for property tests ("a 5xx for any input is a bug"): drop,
 * replace or retype fields at any depth, chosen by fast-check.
 */
import fc from "fast-check";

export type MutationOp = { kind: "drop" | "replace" | "retype"; pick: number; value: unknown };

/** Every path to a field of `value`, at any depth. */
function paths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => [[...prefix, k], ...paths(v, [...prefix, k])]);
}

/** A copy of `body` with the operations applied in turn. */
export function mutate(body: unknown, ops: MutationOp[]): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  for (const op of ops) {
    const all = paths(copy);
    if (all.length === 0) break;
    const path = all[op.pick % all.length]!;
    const parent = path.slice(0, -1).reduce<Record<string, unknown>>((o, k) => o[k] as Record<string, unknown>, copy);
    const key = path.at(-1)!;
    if (op.kind === "drop") delete parent[key];
    else if (op.kind === "replace") parent[key] = op.value;
    else {
      const v = parent[key];
      parent[key] =
        typeof v === "string" ? Number(v) || v.length : typeof v === "boolean" || typeof v === "number" ? String(v) : [v];
    }
  }
  return copy;
}

export const mutationOp: fc.Arbitrary<MutationOp> = fc.record({
  kind: fc.constantFrom("drop" as const, "replace" as const, "retype" as const),
  pick: fc.nat(),
  value: fc.oneof(
    fc.jsonValue(),
    fc.string(),
    fc.constantFrom("", " ", "0", "-1", "1e400", "9".repeat(40), "\u0000", "__proto__", "4111111111111111", "javascript:x"),
    fc.integer(),
    fc.double(),
  ),
});

/** One to four mutations. */
export const mutations = fc.array(mutationOp, { minLength: 1, maxLength: 4 });
