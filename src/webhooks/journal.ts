/**
 * The delivery journal and replay (docs/control-plane.md `GET /_sandbox/webhooks`, `POST .../{id}/replay`):
 * reads what the outbox and the dispatcher wrote, and queues a replay as a new delivery. Sending is
 * the dispatcher's job (dispatcher.ts); this module never touches the network.
 */

import { type Db, inTransaction } from "../db/client.js";
import { type Behaviour, cause, type Seen, UNSEEN } from "../platform/behaviours.js";
import type { Clock } from "../platform/clock.js";
import { toIso } from "../platform/clock.js";
import { notFound } from "../platform/errors.js";
import type { Ids } from "../platform/ids.js";
import { badChecksum, type ChaosMode, insertWithChaos } from "./chaos.js";
import {
  type DeliveryRow,
  type DeliveryStatus,
  type JournalFilter,
  type NewDeliveryInput,
  WebhooksRepo,
} from "./webhooks.repo.js";

/** One entry of `GET /_sandbox/webhooks` (docs/control-plane.md). */
export interface JournalEntry {
  id: string;
  kind: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  status: DeliveryStatus;
  transactionId: string | null;
  subscriptionId: string | null;
  eventStatus: string;
  createdAt: string;
  nextAttemptAt: string | null;
  replayOf: string | null;
  chaos: string | null;
  attempts: Array<{ at: string; httpStatus: number | null; error: string | null }>;
}

/**
 * A URL with its userinfo (`user:password@`) replaced by `***@`, for the journal and logs: the
 * receiver still gets the real one (credentials in a callbackUrl are not shown back).
 */
export function maskUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, "$1***@");
}

/** A delivery replayed (docs/coverage.md), noted where the replay is made: a delivery's row alone does not say it to the event log. */
export const WEBHOOK_REPLAYED: Behaviour = {
  id: "webhook.replayed",
  area: "webhooks",
  title: "A webhook delivery replayed (POST /_sandbox/webhooks/{id}/replay)",
  cause: cause({ act: "pay", webhook: "ok" }, { act: "replay" }),
};

export interface JournalDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  /** Wakes the due-work runner (a replay is due at once). */
  poke: () => void;
  /** Notes a replay for the coverage report (docs/coverage.md). */
  seen?: Seen;
}

export class WebhookJournal {
  private readonly repo: WebhooksRepo;

  constructor(private readonly deps: JournalDeps) {
    this.repo = new WebhooksRepo(deps.db);
  }

  /** `GET /_sandbox/webhooks` (docs/control-plane.md): newest first. */
  list(filter: JournalFilter): JournalEntry[] {
    const rows = this.repo.list(filter);
    const attempts = new Map<string, JournalEntry["attempts"]>();
    for (const a of this.repo.attemptsOf(rows.map((r) => r.id))) {
      const list = attempts.get(a.deliveryId) ?? [];
      if (list.length === 0) attempts.set(a.deliveryId, list);
      list.push({ at: toIso(a.at), httpStatus: a.httpStatus, error: a.error });
    }
    return rows.map((r) => present(r, attempts.get(r.id) ?? []));
  }

  /** One journal entry, or 404. */
  get(id: string): JournalEntry {
    const row = this.repo.byId(id);
    if (!row) throw notFound(`Webhook delivery not found: ${id}`);
    const attempts = this.repo.attemptsOf([id]).map((a) => ({ at: toIso(a.at), httpStatus: a.httpStatus, error: a.error }));
    return present(row, attempts);
  }

  /**
   * `POST /_sandbox/webhooks/{id}/replay` (docs/control-plane.md): the same url, body and signature as a new
   * delivery, due now, under its own orderKey so nothing queued ahead of the original blocks it.
   */
  replay(id: string, chaos?: { chaos?: ChaosMode | undefined; delay?: string | undefined }): JournalEntry {
    const original = this.repo.byId(id);
    if (!original) throw notFound(`Webhook delivery not found: ${id}`);
    const now = this.deps.clock.nowMs();
    const newId = this.deps.ids.next("webhook");
    const row = {
      id: newId,
      merchantKey: original.merchantKey,
      kind: original.kind,
      orderKey: newId,
      transactionId: original.transactionId,
      subscriptionId: original.subscriptionId,
      eventStatus: original.eventStatus,
      url: original.url,
      headers: { ...original.headers, "X-Sandbox-Delivery-Id": newId } as Record<string, string>,
      body: original.body,
      status: "pending",
      attemptCount: 0,
      nextAttemptAt: now,
      replayOf: original.id,
      createdAt: now,
      updatedAt: now,
    } satisfies NewDeliveryInput;
    // chaos on replay (docs/webhooks.md#webhook-chaos): the replay is a fresh delivery, so the original's chaos is not carried over
    const sig = row.headers["X-Checksum"];
    if (sig !== undefined && original.chaos === "badSignature") row.headers["X-Checksum"] = badChecksum(sig); // inverted twice: right again
    inTransaction(this.deps.db, () => {
      insertWithChaos(this.repo, row, chaos?.chaos ?? null, {
        now,
        delayBy: chaos?.delay,
        nextId: () => this.deps.ids.next("webhook"),
      });
      (this.deps.seen ?? UNSEEN)(WEBHOOK_REPLAYED.id, {
        deliveryId: newId,
        transactionId: original.transactionId,
        subscriptionId: original.subscriptionId,
        at: now,
      });
    });
    this.deps.poke();
    return this.get(newId);
  }
}

function present(r: DeliveryRow, attempts: JournalEntry["attempts"]): JournalEntry {
  let body: unknown = r.body;
  try {
    body = JSON.parse(r.body);
  } catch {}
  return {
    id: r.id,
    kind: r.kind,
    url: maskUrl(r.url),
    headers: r.headers,
    body,
    status: r.status,
    transactionId: r.transactionId,
    subscriptionId: r.subscriptionId,
    eventStatus: r.eventStatus,
    createdAt: toIso(r.createdAt),
    nextAttemptAt: r.nextAttemptAt === null ? null : toIso(r.nextAttemptAt),
    replayOf: r.replayOf,
    chaos: r.chaos,
    attempts,
  };
}
