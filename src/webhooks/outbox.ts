/**
 * The write side of the transactional outbox (a state change and its webhook commit in one
 * transaction). A delivery is made here (its URL, signature, headers and body) and written either by
 * the state change's own statement (`prepare`: src/modules/transactions/transactions.repo.ts writes it
 * with the transaction's row) or here (`enqueue`). Either way it is written waiting for the sender
 * (no due time, not in flight), or behind a pending delivery of its orderKey; the outbox notes what
 * it wrote, and the dispatcher takes that at the commit (`written`): the outbox calls nobody.
 */
import { type Db, inTransaction } from "../db/client.js";
import type { Merchant } from "../db/schema/index.js";
import { MAX_URL_LENGTH } from "../http/schemas.js";
import type { Clock } from "../platform/clock.js";
import { invalidField } from "../platform/errors.js";
import type { Ids } from "../platform/ids.js";
import { decideChaos, insertWithChaos, releaseReordered } from "./chaos.js";
import { type CallbackKind, checksum } from "./signer.js";
import { type NewDeliveryInput, WebhooksRepo } from "./webhooks.repo.js";

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

/**
 * The same headers as the JSON text stored and sent, written out: `JSON.stringify(deliveryHeaders(sum, id))`
 * without the object (a checksum is base64 and an id `wh_` and base62: neither needs escaping).
 */
function deliveryHeadersText(sum: string, id: string): string {
  return `{"Content-Type":"application/json","X-Checksum":"${sum}","X-Sandbox-Delivery-Id":"${id}"}`;
}

/** A delivery as made for its row, its headers and body as the JSON text stored (and sent as it is). */
export interface PreparedDelivery {
  id: string;
  /** Its row's seq, when the outbox wrote it itself (`enqueue`). */
  seq?: number;
  kind: CallbackKind;
  orderKey: string;
  url: string;
  headers: string;
  body: string;
}

/** What the deliveries written since the dispatcher last asked wait for. */
export interface Written {
  /** Free to go: no pending delivery of their orderKey before them (the dispatcher places them). */
  deliveries: PreparedDelivery[];
  /** Rows due now were written another way (chaos): a claim finds them. */
  claim: boolean;
}

export interface OutboxDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
}

export class Outbox {
  private readonly repo: WebhooksRepo;
  private written_: PreparedDelivery[] = [];
  private claim = false;
  /**
   * orderKeys whose pending delivery was written with no pending delivery of its key before it, and
   * none has been written after it since: when it settles, nothing waits behind it, so the promote
   * statement is skipped (docs/performance.md). Any other write of a key takes it out; a restart or
   * a reset starts empty, and a full set is emptied: either only costs the statement again.
   */
  private readonly alone = new Set<string>();

  constructor(private readonly deps: OutboxDeps) {
    this.repo = new WebhooksRepo(deps.db);
  }

  /** Which of `orderKeys` have a pending delivery now (in the caller's transaction): one statement for a batch. */
  pendingOrderKeys(orderKeys: readonly string[]): Set<string> {
    return orderKeys.length === 0 ? new Set() : this.repo.pendingOrderKeys(orderKeys);
  }

  /**
   * A delivery made for the caller's own statement to write (transactions.repo.ts, with the state
   * change): its columns, noted as written. Undefined when there is no callbackUrl. Not for a
   * merchant with webhook chaos (`enqueue` writes those). If the caller's write fails, the dispatcher
   * finds no row for what was noted, and forgets it.
   */
  prepare(input: EnqueueInput): PreparedDelivery | undefined {
    if (!input.callbackUrl) return undefined;
    const url = callbackTarget(input.callbackUrl, input.paymentMethod, input.apmType);
    const id = this.deps.ids.next("webhook");
    const orderKey = input.orderKey ?? input.transactionId ?? input.subscriptionId ?? id;
    const blocked = input.first ? false : (input.pending ?? this.repo.hasPending(orderKey));
    const sum = checksum(input.kind, input.body, input.merchant.merchantSecret);
    const d: PreparedDelivery = {
      id,
      kind: input.kind,
      orderKey,
      url,
      // the headers' JSON text made once: stored as it is, and sent as it is (docs/performance.md)
      headers: deliveryHeadersText(sum, id),
      body: JSON.stringify(input.body),
    };
    if (blocked) this.alone.delete(orderKey);
    else {
      if (this.alone.size >= 100_000) this.alone.clear(); // a long advance's parked deliveries, rolled-back writes
      this.alone.add(orderKey);
      this.written_.push(d);
    }
    return d;
  }

  /**
   * Writes one pending delivery inside the caller's transaction (one of its own when there is none):
   * waiting for the sender, or, while an earlier delivery of its orderKey is still pending, behind it.
   * Returns its id, or undefined when there is no callbackUrl.
   */
  enqueue(input: EnqueueInput): string | undefined {
    if (!input.callbackUrl) return undefined;
    if (!this.deps.db.$client.inTransaction) return inTransaction(this.deps.db, () => this.enqueue(input));
    if (input.merchant.webhookChaos) return this.enqueueWithChaos(input);
    const d = this.prepare(input) as PreparedDelivery;
    d.seq = this.repo.insertText(this.row(input, d, d.headers, null));
    return d.id;
  }

  /** Whether anything was written for the sender since the last `written()` (its COMMIT is still to come). */
  get hasWritten(): boolean {
    return this.written_.length > 0 || this.claim;
  }

  /** What was written for the sender since the last call (the dispatcher, at each commit). */
  written(): Written {
    const out = { deliveries: this.written_, claim: this.claim };
    if (this.written_.length > 0) this.written_ = [];
    this.claim = false;
    return out;
  }

  /** Whether the pending delivery of `orderKey` that just settled had nothing written behind it (forgets it). */
  settledAlone(orderKey: string): boolean {
    return this.alone.delete(orderKey);
  }

  /** Forgets every key (reset dropped the deliveries). */
  clear(): void {
    this.alone.clear();
    this.written_ = [];
    this.claim = false;
  }

  /** The row of a delivery: its headers as stored (JSON text, or an object for the chaos inserts). */
  private row<H>(input: EnqueueInput, d: PreparedDelivery, headers: H, nextAttemptAt: number | null) {
    const now = this.deps.clock.nowMs();
    return {
      id: d.id,
      merchantKey: input.merchant.merchantKey,
      kind: d.kind,
      orderKey: d.orderKey,
      transactionId: input.transactionId ?? null,
      subscriptionId: input.subscriptionId ?? null,
      eventStatus: input.eventStatus,
      url: d.url,
      headers,
      body: d.body,
      status: "pending" as const,
      attemptCount: 0,
      nextAttemptAt,
      inFlightSince: null,
      createdAt: now,
      updatedAt: now,
    };
  }

  /** Opt-in webhook chaos (docs/webhooks.md#webhook-chaos): only merchants whose scenario asks for it pay for this. */
  private enqueueWithChaos(input: EnqueueInput): string {
    const url = callbackTarget(input.callbackUrl as string, input.paymentMethod, input.apmType);
    const id = this.deps.ids.next("webhook");
    const now = this.deps.clock.nowMs();
    const orderKey = input.orderKey ?? input.transactionId ?? input.subscriptionId ?? id;
    const blocked = input.first ? false : (input.pending ?? this.repo.hasPending(orderKey));
    this.alone.delete(orderKey);
    this.claim = true;
    const sum = checksum(input.kind, input.body, input.merchant.merchantSecret);
    const d: PreparedDelivery = {
      id,
      kind: input.kind,
      orderKey,
      url,
      headers: "",
      body: JSON.stringify(input.body),
    };
    const row = this.row(input, d, deliveryHeaders(sum, id), blocked ? null : now) satisfies NewDeliveryInput;
    const rates = input.merchant.webhookChaos as NonNullable<Merchant["webhookChaos"]>;
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
