import { customAlphabet } from "nanoid";
import type { Clock } from "./clock.js";

/** Prefixes of every id the sandbox hands out : one table, no ad-hoc strings. */
export const ID_PREFIXES = {
  transaction: "tx",
  token: "tok",
  subscription: "sub",
  refund: "rf",
  payout: "po",
  webhook: "wh",
  request: "req",
  sandbox: "sbx",
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

export interface Ids {
  next(kind: IdKind): string;
}

/** In ASCII order, so the base-62 time prefix sorts as the time does. */
const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const random = customAlphabet(alphabet, 12);

/** Real ms since 1970 in 8 base-62 digits (fixed width: good until the year 8888). */
export function timePrefix(ms: number): string {
  let out = "";
  let n = Math.max(0, Math.floor(ms));
  for (let i = 0; i < 8; i++) {
    out = alphabet[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/**
 * Time-ordered random ids: `tx_` + 8 characters of the clock's time + 12 random ones (71 bits:
 * unguessable), 20 in all, URL-safe. New ids sort after older ones, so the primary-key B-trees
 * grow at their right edge instead of splitting pages at random (docs/performance.md). The time comes from
 * the sandbox's clock; it only orders storage and means nothing to the API (a
 * clock put back just starts a new run of ids elsewhere in the tree).
 */
export function timeOrderedIds(clock: Pick<Clock, "nowMs">): Ids {
  return { next: (kind) => `${ID_PREFIXES[kind]}_${timePrefix(clock.nowMs())}${random()}` };
}

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
