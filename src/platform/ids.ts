import { customAlphabet } from "nanoid";

/** Prefixes of every id the sandbox hands out (house style 7): one table, no ad-hoc strings. */
export const ID_PREFIXES = {
  transaction: "tx",
  token: "tok",
  subscription: "sub",
  refund: "rf",
  payout: "po",
  webhook: "wh",
  request: "req",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export interface Ids {
  next(kind: IdKind): string;
}

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const random = customAlphabet(alphabet, 20);

/** Random ids: `tx_4fQ…`, unguessable, URL-safe. */
export const randomIds: Ids = { next: (kind) => `${ID_PREFIXES[kind]}_${random()}` };

/** Counting ids for tests that want stable output: `tx_000001`, `tx_000002`, ... */
export function sequentialIds(): Ids {
  const counters = new Map<IdKind, number>();
  return {
    next(kind) {
      const n = (counters.get(kind) ?? 0) + 1;
      counters.set(kind, n);
      return `${ID_PREFIXES[kind]}_${String(n).padStart(6, "0")}`;
    },
  };
}
