/**
 * The write side of the transactional outbox (house style 6). Services call `enqueue` inside
 * the same synchronous database transaction as the status change it reports, then
 * `ctx.work.poke()` after commit; the dispatcher only reads what was committed.
 */
import type { Db } from "../db/client.js";
import { webhookDeliveries } from "../db/schema/index.js";
import type { Merchant } from "../modules/merchants/merchants.service.js";
import type { Clock } from "../platform/clock.js";
import type { Ids } from "../platform/ids.js";
import { type CallbackKind, checksum } from "./signer.js";

export interface EnqueueInput {
  merchant: Merchant;
  kind: CallbackKind;
  /** The merchant's callbackUrl; when absent nothing is enqueued. */
  callbackUrl: string | null | undefined;
  paymentMethod: "card" | "apm";
  /** For paymentMethod=apm: the method, added as `apmType`. */
  apmType?: string;
  transactionId?: string | null;
  subscriptionId?: string | null;
  /** Deliveries with the same key go out in enqueue order (default: transactionId). */
  orderKey?: string;
  /** The transactionStatus the body reports (journal filter and display). */
  eventStatus: string;
  body: Record<string, unknown>;
}

/** `callbackUrl` with paymentMethod (and apmType) added to its query, keeping what it had. */
export function callbackTarget(callbackUrl: string, paymentMethod: string, apmType?: string): string {
  const u = new URL(callbackUrl);
  u.searchParams.set("paymentMethod", paymentMethod);
  if (apmType) u.searchParams.set("apmType", apmType);
  return u.toString();
}

export class Outbox {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ids: Ids,
  ) {}

  /** Writes one pending delivery, due now. Returns its id, or undefined when there is no callbackUrl. */
  enqueue(input: EnqueueInput): string | undefined {
    if (!input.callbackUrl) return undefined;
    const now = this.clock.nowMs();
    const id = this.ids.next("webhook");
    const orderKey = input.orderKey ?? input.transactionId ?? input.subscriptionId ?? id;
    this.db
      .insert(webhookDeliveries)
      .values({
        id,
        merchantKey: input.merchant.merchantKey,
        kind: input.kind,
        orderKey,
        transactionId: input.transactionId ?? null,
        subscriptionId: input.subscriptionId ?? null,
        eventStatus: input.eventStatus,
        url: callbackTarget(input.callbackUrl, input.paymentMethod, input.apmType),
        headers: {
          "Content-Type": "application/json",
          "X-Checksum": checksum(input.kind, input.body, input.merchant.merchantSecret),
          "X-Sandbox-Delivery-Id": id,
        },
        body: JSON.stringify(input.body),
        status: "pending",
        attemptCount: 0,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      })
      .run();
    return id;
  }
}
