/**
 * What the event log shows, as behaviours of the catalogue (docs/coverage.md#how-it-is-counted): each
 * `transaction` event is its kind reaching its status (FAILED with its declineCode), and, from facts
 * of its row that never change (the APM method, a refund's amounts), an APM method completed or
 * declined, a refund in part, whole or converted; each
 * `webhook` event is an attempt's outcome and its chaos mode. Pure: the rows and their facts in,
 * the behaviours with their first evidence out.
 *
 * It runs for every event a sandbox writes (in the background, docs/performance.md), so an event's
 * data is read by looking for its keys in the text (JSON escapes every quote inside a value, so a
 * key `"status":"` cannot be found inside one), and JSON.parse only reads what is not in that shape;
 * the behaviours of a (kind, status, declineCode) are worked out once and kept.
 */
import type { Evidence } from "../platform/behaviours.js";
import { parseInstant } from "../platform/clock.js";
import { apmBehaviour, REFUND, transactionBehaviour } from "./catalogue/transactions.js";
import { attemptBehaviours } from "./catalogue/webhooks.js";

/** One row of the event log as the fold reads it: id, type, transaction_id, data. */
export type EventRow = [id: number, type: string, transactionId: string | null, data: string];

/** What a transaction's row says that its events do not (fixed at its creation). */
export interface TxFacts {
  paymentMethod: string | null;
  orderAmount: number;
  orderCurrency: string;
  processedCurrency: string;
  parentAmount: number | null;
}

/** Behaviours seen in a run of events: how many times each, and its first evidence. */
export type Tally = Map<string, { count: number; first: Evidence }>;

interface TransactionData {
  kind: string;
  status: string;
  declineCode: number | null;
  at: string;
}

interface WebhookData {
  deliveryId: string;
  attempt: number;
  httpStatus?: number | undefined;
  chaos?: string | undefined;
  at: string;
}

/** The text after `"key":"` up to the next quote, searching from `from`; undefined when absent. */
function stringAt(s: string, key: string, from = 0): string | undefined {
  const i = s.indexOf(key, from);
  if (i < 0) return undefined;
  const start = i + key.length;
  const end = s.indexOf('"', start);
  return end < 0 ? undefined : s.slice(start, end);
}

/** The number after `"key":`, or null for `null`; undefined when absent. */
function numberAt(s: string, key: string): number | null | undefined {
  const i = s.indexOf(key);
  if (i < 0) return undefined;
  let end = i + key.length;
  while (end < s.length && s.charCodeAt(end) !== 44 /* , */ && s.charCodeAt(end) !== 125 /* } */) end++;
  const text = s.slice(i + key.length, end);
  if (text === "null") return null;
  const n = Number(text);
  return text === "" || Number.isNaN(n) ? undefined : n;
}

function parsed<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/** A `transaction` event's data (docs/events.md). */
export function readTransaction(s: string): TransactionData | undefined {
  const kind = stringAt(s, '"kind":"');
  const status = stringAt(s, '"status":"');
  const declineCode = numberAt(s, '"declineCode":');
  const at = stringAt(s, '"at":"');
  if (kind !== undefined && status !== undefined && declineCode !== undefined && at !== undefined) {
    return { kind, status, declineCode, at };
  }
  const d = parsed<Partial<TransactionData>>(s);
  if (!d || typeof d.kind !== "string" || typeof d.status !== "string") return undefined;
  return { kind: d.kind, status: d.status, declineCode: d.declineCode ?? null, at: String(d.at ?? "") };
}

/** A `webhook` event's data (docs/events.md). */
export function readWebhook(s: string): WebhookData | undefined {
  const deliveryId = stringAt(s, '"deliveryId":"');
  const attempt = numberAt(s, '"attempt":');
  const at = stringAt(s, '"at":"');
  if (deliveryId !== undefined && typeof attempt === "number" && at !== undefined) {
    const httpStatus = numberAt(s, '"httpStatus":');
    return { deliveryId, attempt, httpStatus: httpStatus ?? undefined, chaos: stringAt(s, '"chaos":"'), at };
  }
  const d = parsed<Partial<WebhookData>>(s);
  if (!d || typeof d.deliveryId !== "string" || typeof d.attempt !== "number") return undefined;
  return { deliveryId: d.deliveryId, attempt: d.attempt, httpStatus: d.httpStatus, chaos: d.chaos, at: String(d.at ?? "") };
}

/** Which transaction events need their row's facts: the end of an APM transaction, a refund's success (a card payment's never). */
export function needsFacts(kind: string, status: string): boolean {
  if (status === "SUCCEED") return kind === "refund" || kind.startsWith("apm_");
  return status === "FAILED" && kind.startsWith("apm_");
}

/** The behaviour of each (kind, status, declineCode), worked out once (kind → status → code). */
const OWN = new Map<string, Map<string, Map<number | null, string | undefined>>>();
function own(d: TransactionData): string | undefined {
  let byStatus = OWN.get(d.kind);
  if (!byStatus) {
    byStatus = new Map();
    OWN.set(d.kind, byStatus);
  }
  let byCode = byStatus.get(d.status);
  if (!byCode) {
    byCode = new Map();
    byStatus.set(d.status, byCode);
  }
  if (!byCode.has(d.declineCode)) byCode.set(d.declineCode, transactionBehaviour(d.kind, d.status, d.declineCode));
  return byCode.get(d.declineCode);
}

/** The behaviours of each (attempt, httpStatus, chaos) outcome, worked out once. */
const ATTEMPTS = new Map<string, readonly string[]>();
function attempted(d: WebhookData): readonly string[] {
  const key = `${d.attempt}|${d.httpStatus ?? ""}|${d.chaos ?? ""}`;
  let ids = ATTEMPTS.get(key);
  if (!ids) {
    ids = attemptBehaviours(d.attempt, d.httpStatus, d.chaos);
    if (ATTEMPTS.size < 10_000) ATTEMPTS.set(key, ids);
  }
  return ids;
}

/** What a transaction event shows besides its own status: from its row's facts. */
function factBehaviours(d: TransactionData, facts: TxFacts, out: string[]): void {
  if (d.kind.startsWith("apm_") && facts.paymentMethod && (d.status === "SUCCEED" || d.status === "FAILED")) {
    out.push(apmBehaviour(facts.paymentMethod, d.kind, d.status));
  }
  if (d.kind === "refund" && d.status === "SUCCEED") {
    out.push(facts.parentAmount !== null && facts.orderAmount >= facts.parentAmount ? REFUND.full : REFUND.partial);
    if (facts.processedCurrency !== facts.orderCurrency) out.push(REFUND.fx);
  }
}

/** One more of `id`; its evidence is made only the first time. */
function count(tally: Tally, id: string, tx: string | null, delivery: string | null, at: string): void {
  const seen = tally.get(id);
  if (seen) seen.count++;
  else {
    const first: Evidence = { transactionId: tx, at: parseInstant(at) ?? 0 };
    if (delivery !== null) first.deliveryId = delivery;
    tally.set(id, { count: 1, first });
  }
}

/** A transaction event whose row's facts are wanted, kept until they are read for the whole run. */
interface Pending {
  tx: string;
  d: TransactionData;
}

/**
 * Adds what `rows` show to `tally`; `factsOf` reads the facts of the transactions whose events need
 * them, once for the whole run. A `reset` among the rows (one this fold was not told of) drops what
 * came before it in the run: coverage counts since the last reset.
 */
export function foldEvents(
  rows: readonly EventRow[],
  factsOf: (ids: string[]) => ReadonlyMap<string, TxFacts>,
  tally: Tally,
): void {
  let pending: Pending[] = [];
  for (const [, type, tx, data] of rows) {
    if (type === "transaction") {
      const d = tx === null ? undefined : readTransaction(data);
      if (!d || tx === null) continue;
      const id = own(d);
      if (id) count(tally, id, tx, null, d.at);
      if (needsFacts(d.kind, d.status)) pending.push({ tx, d });
    } else if (type === "webhook") {
      const d = readWebhook(data);
      if (!d) continue;
      for (const id of attempted(d)) count(tally, id, tx, d.deliveryId, d.at);
    } else if (type === "reset") {
      tally.clear();
      pending = [];
    }
  }
  if (pending.length === 0) return;
  const facts = factsOf([...new Set(pending.map((p) => p.tx))]);
  const extra: string[] = [];
  for (const { tx, d } of pending) {
    const f = facts.get(tx);
    if (!f) continue;
    extra.length = 0;
    factBehaviours(d, f, extra);
    for (const x of extra) count(tally, x, tx, null, d.at);
  }
}
