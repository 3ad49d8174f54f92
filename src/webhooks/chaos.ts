/**
 * Webhook chaos (docs/webhooks.md#webhook-chaos): opt-in misbehaviour that tests a merchant's
 * receiver. Per merchant in a scenario (`merchants[].webhookChaos`, each mode a rate 0..1) or per
 * replay (`{"chaos": mode}`). Each affected delivery is marked `chaos: <mode>` in the journal.
 *
 * - duplicate: the delivery goes out twice, same body, signature and X-Sandbox-Delivery-Id
 *   (the copy right after the original, in its transaction's order).
 * - reorder: the delivery is held back until its transaction's next delivery is enqueued, which
 *   goes out first; the held one follows a virtual second later (or after 5 virtual minutes if
 *   no next delivery comes).
 * - delay: the delivery is due `delayBy` (ISO 8601, virtual time; default PT5M) later; those of
 *   its transaction behind it wait for it, as always.
 * - badSignature: X-Checksum is not the merchant's HMAC.
 *
 * Which deliveries get a mode is decided by a hash of the delivery id: rate 1 is every delivery,
 * 0 none, 0.5 a stable half. At most one mode per delivery, in the order above.
 *
 * LIMITATIONS:
 * - delay applies only to a delivery that is due when enqueued (not one waiting behind another).
 */
import { createHash } from "node:crypto";
import { addDuration, parseDuration } from "../platform/duration.js";
import type { NewDeliveryInput, WebhooksRepo } from "./webhooks.repo.js";

export const CHAOS_MODES = ["duplicate", "reorder", "delay", "badSignature"] as const;
export type ChaosMode = (typeof CHAOS_MODES)[number];

export const DEFAULT_CHAOS_DELAY = "PT5M";
/** How long a reordered delivery waits for its transaction's next one. */
export const REORDER_HOLD_MS = 5 * 60_000;
/** How long after the next delivery a released reordered one is due. */
export const REORDER_GAP_MS = 1_000;

/** A merchant's `webhookChaos` as stored: mode → rate, and `delayBy`. */
export type ChaosRates = Record<string, number | string>;

/** A number in [0, 1) fixed by the delivery id and mode. */
function draw(deliveryId: string, mode: string): number {
  return createHash("sha256").update(`${deliveryId}:${mode}`).digest().readUInt32BE(0) / 2 ** 32;
}

/** The chaos mode a delivery gets from its merchant's rates, or null. */
export function decideChaos(rates: ChaosRates | null | undefined, deliveryId: string): ChaosMode | null {
  if (!rates) return null;
  for (const mode of CHAOS_MODES) {
    const rate = rates[mode];
    if (typeof rate === "number" && rate > 0 && draw(deliveryId, mode) < rate) return mode;
  }
  return null;
}

/** A signature that is certainly not the right one: the right one with its bytes inverted. */
export function badChecksum(right: string): string {
  const bytes = Buffer.from(right, "base64");
  for (let i = 0; i < bytes.length; i++) bytes[i] = (bytes[i] as number) ^ 0xff;
  return bytes.length > 0 ? bytes.toString("base64") : "c2FuZGJveC1jaGFvcw==";
}

/**
 * Inserts `row` (due at `row.nextAttemptAt`, or null when it waits behind its orderKey) with
 * `mode` applied, inside the caller's transaction. Returns the ids inserted.
 */
export function insertWithChaos(
  repo: WebhooksRepo,
  row: NewDeliveryInput,
  mode: ChaosMode | null,
  opts: { now: number; delayBy?: string | undefined; nextId: () => string },
): string[] {
  switch (mode) {
    case null:
      repo.insert(row);
      return [row.id];
    case "badSignature":
      repo.insert({
        ...row,
        chaos: mode,
        headers: { ...row.headers, "X-Checksum": badChecksum(row.headers["X-Checksum"] ?? "") },
      });
      return [row.id];
    case "delay": {
      if (row.nextAttemptAt === null) {
        repo.insert(row);
        return [row.id];
      }
      const d =
        parseDuration(opts.delayBy ?? DEFAULT_CHAOS_DELAY) ??
        (parseDuration(DEFAULT_CHAOS_DELAY) as NonNullable<ReturnType<typeof parseDuration>>);
      repo.insert({ ...row, chaos: mode, nextAttemptAt: addDuration(row.nextAttemptAt, d) });
      return [row.id];
    }
    case "duplicate": {
      repo.insert({ ...row, chaos: mode });
      const copy = opts.nextId();
      // same orderKey: the copy waits behind the original and goes right after it
      repo.insert({ ...row, id: copy, chaos: mode, nextAttemptAt: null, createdAt: row.createdAt });
      return [row.id, copy];
    }
    case "reorder": {
      // its own orderKey, so the transaction's next delivery is not held behind it; released by releaseReordered
      repo.insert({ ...row, orderKey: row.id, chaos: mode, nextAttemptAt: opts.now + REORDER_HOLD_MS });
      return [row.id];
    }
  }
}

/**
 * Called when a delivery of `transactionId` is enqueued: reordered deliveries of that transaction
 * still waiting become due just after it.
 */
export function releaseReordered(repo: WebhooksRepo, transactionId: string, except: string[], now: number): void {
  repo.releaseHeld(transactionId, except, now + REORDER_GAP_MS);
}
