/**
 * The write side of the transactional outbox (a state change and its webhook commit in one transaction). Services call `enqueue` inside
 * the same synchronous database transaction as the status change it reports; the dispatcher,
 * woken after the commit, only reads what was committed.
 */
import type { Db } from "../db/client.js";
import type { Merchant } from "../db/schema/index.js";
import { MAX_URL_LENGTH } from "../http/schemas.js";
import type { Clock } from "../platform/clock.js";
import { invalidField } from "../platform/errors.js";
import type { Ids } from "../platform/ids.js";
import { decideChaos, insertWithChaos, releaseReordered } from "./chaos.js";
import { type CallbackKind, checksum } from "./signer.js";
import { type DueRow, type NewDeliveryInput, WebhooksRepo } from "./webhooks.repo.js";

/** What the outbox needs of the dispatcher (WebhookDispatcher): a wake, or a delivery taken or parked on the spot. */
export interface OutboxDispatch {
  wake(): void;
  placement(url: string): "take" | "park" | undefined;
  take(row: DueRow, at: number): void;
  park(seq: number, id: string, url: string, at: number): void;
  /**
   * A delivery of `orderKey` was written: `alone` when no pending delivery of its key was before it
   * (then, until another of its key is written, nothing waits behind it).
   */
  wrote(orderKey: string, alone: boolean): void;
}

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
  /**
   * The orderKey's first delivery: its resource was created in this same transaction, so no
   * earlier delivery can be pending and the check is skipped (one index probe per create).
   */
  first?: boolean;
  /**
   * Whether an earlier delivery of the orderKey is pending, when the caller already asked
   * (`pendingOrderKeys`, in this same transaction, before any other enqueue of that key): the
   * outbox then skips its own probe (the billing run asks once per batch).
   */
  pending?: boolean;
  /** The transactionStatus the body reports (journal filter and display). */
  eventStatus: string;
  body: Record<string, unknown>;
}

/**
 * `callbackUrl` with paymentMethod (and apmType) added to its query, keeping what it had
 * (docs/webhooks.md). Not an http(s) URL → 400 `Invalid field: callbackUrl`, never a 500.
 */
export function callbackTarget(callbackUrl: string, paymentMethod: string, apmType?: string): string {
  // a merchant sends the same few callbackUrls over and over: parse each once (docs/performance.md)
  const key = `${paymentMethod}\n${apmType ?? ""}\n${callbackUrl}`;
  const known = targets.get(key);
  if (known !== undefined) return known;
  const target = buildTarget(callbackUrl, paymentMethod, apmType);
  if (targets.size >= 1000) targets.clear();
  targets.set(key, target);
  return target;
}
const targets = new Map<string, string>();

function buildTarget(callbackUrl: string, paymentMethod: string, apmType?: string): string {
  // the routes' own limit (src/http/schemas.ts): a longer callbackUrl never reaches the outbox from a request
  if (callbackUrl.length > MAX_URL_LENGTH) throw invalidField("callbackUrl");
  let u: URL;
  try {
    u = new URL(callbackUrl);
  } catch {
    throw invalidField("callbackUrl");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw invalidField("callbackUrl");
  u.searchParams.set("paymentMethod", paymentMethod);
  if (apmType) u.searchParams.set("apmType", apmType);
  return u.toString();
}

/** A delivery's stored headers (the journal shows them; the sender thread adds the attempt's own). */
function deliveryHeaders(sum: string, id: string): Record<string, string> {
  return { "Content-Type": "application/json", "X-Checksum": sum, "X-Sandbox-Delivery-Id": id };
}

export interface OutboxDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  /** The dispatcher to wake or hand a delivery to; none in tools that only write. */
  dispatch?: OutboxDispatch | undefined;
}

export class Outbox {
  private readonly repo: WebhooksRepo;

  /**
   * Every enqueue tells the dispatcher, so no caller can forget to: a delivery that is due at once
   * and whose destination has room (in the server's group-commit batches) is written already in
   * flight and handed over (`take`: no claim); one due at once whose destination is full
   * is written parked and queued (`park`); any other is written and `wake` runs (a
   * claim at the group commit, or a run of the due work after the enqueuing transaction has
   * committed). A rolled-back enqueue only costs an empty run (or a queued row found gone).
   */
  constructor(private readonly deps: OutboxDeps) {
    this.repo = new WebhooksRepo(deps.db);
  }

  /** Which of `orderKeys` have a pending delivery now (in the caller's transaction): one statement for a batch. */
  pendingOrderKeys(orderKeys: readonly string[]): Set<string> {
    return orderKeys.length === 0 ? new Set() : this.repo.pendingOrderKeys(orderKeys);
  }

  /**
   * Writes one pending delivery: due now, or, while an earlier delivery of its orderKey is still
   * pending, with no due time (the dispatcher makes it due when that one settles).
   * Returns its id, or undefined when there is no callbackUrl.
   */
  enqueue(input: EnqueueInput): string | undefined {
    if (!input.callbackUrl) return undefined;
    const url = callbackTarget(input.callbackUrl, input.paymentMethod, input.apmType);
    const now = this.deps.clock.nowMs();
    const id = this.deps.ids.next("webhook");
    const orderKey = input.orderKey ?? input.transactionId ?? input.subscriptionId ?? id;
    const blocked = input.first ? false : (input.pending ?? this.repo.hasPending(orderKey));
    const rates = input.merchant.webhookChaos;
    const sum = checksum(input.kind, input.body, input.merchant.merchantSecret);
    const body = JSON.stringify(input.body);
    const transactionId = input.transactionId ?? null;
    // the row of either path below: its headers as stored (JSON text, or an object for the chaos inserts)
    const delivery = <H>(headers: H, attemptCount: number, nextAttemptAt: number | null, inFlightSince: number | null) => ({
      id,
      merchantKey: input.merchant.merchantKey,
      kind: input.kind,
      orderKey,
      transactionId,
      subscriptionId: input.subscriptionId ?? null,
      eventStatus: input.eventStatus,
      url,
      headers,
      body,
      status: "pending" as const,
      attemptCount,
      nextAttemptAt,
      inFlightSince,
      createdAt: now,
      updatedAt: now,
    });
    if (!rates) {
      const place = blocked ? undefined : this.deps.dispatch?.placement(url);
      if (place === undefined) this.deps.dispatch?.wake();
      // the headers' JSON text made once: stored as it is, and sent as it is (docs/performance.md)
      const headers = JSON.stringify(deliveryHeaders(sum, id));
      const taken = place === "take";
      // "take": written already in flight (attempt 1) and sent right after the commit, no claim needed;
      // "park": its destination is full, written already parked (no due time) and queued behind the
      // others, as a claim would have parked it, without the due-index entry, the claim and the park UPDATE
      const seq = this.repo.insertText(
        delivery(headers, taken ? 1 : 0, blocked || place !== undefined ? null : now, taken ? now : null),
      );
      this.deps.dispatch?.wrote(orderKey, !blocked);
      if (taken) {
        const row = {
          seq,
          id,
          orderKey,
          url,
          headers,
          body,
          attemptCount: 0,
          transactionId,
          chaos: null,
          mid: input.merchant.mid,
        };
        this.deps.dispatch?.take(row, now);
      } else if (place === "park") this.deps.dispatch?.park(seq, id, url, now);
      return id;
    }
    this.deps.dispatch?.wrote(orderKey, false);
    this.deps.dispatch?.wake();
    const row = delivery(deliveryHeaders(sum, id), 0, blocked ? null : now, null) satisfies NewDeliveryInput;
    // opt-in webhook chaos (docs/webhooks.md#webhook-chaos): only merchants whose scenario asks for it pay for this
    let mode = decideChaos(rates, id);
    // the delivery that overtakes a held one goes now (else two held ones would just keep their order)
    const overtakes = input.transactionId ? this.repo.hasHeld(input.transactionId) : false;
    if (mode === "reorder" && overtakes) mode = null;
    const ids = insertWithChaos(this.repo, row, mode, {
      now,
      delayBy: typeof rates.delayBy === "string" ? rates.delayBy : undefined,
      nextId: () => this.deps.ids.next("webhook"),
    });
    if (input.transactionId && overtakes) releaseReordered(this.repo, input.transactionId, ids, now);
    return id;
  }
}
