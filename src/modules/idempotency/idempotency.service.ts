/**
 * Idempotency on `requestId` (docs/cards.md; docs/api.md), one mechanism for every
 * create endpoint. The stored response and its unique key are written in the same database
 * transaction as the create, so a duplicate — sequential or concurrent — never creates twice:
 * the same body replays the first response (HTTP 200), another body is a 409.
 *
 * Two ways to write the key: a create that writes a transaction writes it first with the row (the
 * lifecycle's create with its key, src/modules/transactions/transactions.repo.ts: a requestId already
 * taken writes nothing, and only then is `replay` asked); any other create runs inside `run`, which
 * looks the key up first and writes it beside the create in one savepoint.
 */
import { type Db, inTransaction } from "../../db/client.js";
import { preparedInsert } from "../../db/insert.js";
import { lazy } from "../../db/lazy.js";
import { idempotencyKeys } from "../../db/schema/index.js";
import { type Behaviour, cause, type Seen, UNSEEN } from "../../platform/behaviours.js";
import type { Clock } from "../../platform/clock.js";
import { sha256Hex } from "../../platform/crypto.js";
import { asBehaviour, conflict } from "../../platform/errors.js";

export interface IdempotencyKey {
  merchantKey: string;
  /** The create operation, e.g. "card_payment", "tokenize", "subscription". */
  operation: string;
  requestId: string;
}

export interface IdempotentResult<T> {
  body: T;
  /** True when this is a replay of the first response. */
  replayed: boolean;
}

/** Keys whose values never reach the stored hash (CVV, national ids): only their presence counts. */
const SECRET_KEYS = new Set(["cvv", "socialSecurityNumber", "ssn", "identityCode"]);

/**
 * The body as hashed: card numbers reduced to BIN, last 4 and length, secrets to their presence.
 * A plain hash of a card number next to its stored BIN and last 4 could be brute-forced (10^5
 * guesses), so the full number must not go into it.
 */
export function redactForHash(value: unknown, key?: string): unknown {
  if (key !== undefined && SECRET_KEYS.has(key)) return value === undefined ? undefined : "[redacted]";
  if (key === "number" && typeof value === "string" && /^\d{12,19}$/.test(value)) {
    return `${value.slice(0, 6)}*${value.slice(-4)}/${value.length}`;
  }
  if (Array.isArray(value)) return value.map((v) => redactForHash(v));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactForHash(v, k)]));
  }
  return value;
}

const CARD_NUMBER = /^\d{12,19}$/;
/** A string JSON.stringify quotes as it is: no quote, backslash, control character or surrogate to escape. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON.stringify escapes
const PLAIN_STRING = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/**
 * `canonicalJson(redactForHash(value))` in one pass, without the redacted copy (the
 * hash of every create's body is on the hot path). Must stay byte for byte the same: stored
 * keys of a reused database are compared with it (a property test holds the two together).
 */
export function hashedForm(value: unknown): string | undefined {
  const out = FORM;
  out.n = 0;
  if (!put(value, undefined, out)) return undefined;
  // the array keeps its room for the next body (a length set lower would free it); a huge body's is dropped
  if (out.n > 4096) {
    const form = out.pieces.slice(0, out.n).join("");
    out.pieces = [];
    return form;
  }
  out.pieces.length = out.n;
  return out.pieces.join("");
}

/**
 * The pieces of the hashed form, joined once: a body's keys (quoted once, QUOTED) and plain strings
 * go in as they are, where building the text piece by piece made a string for every value and
 * several for every key (docs/performance.md "The pages a payment writes"). One array, reused by
 * every hash, written from its start each time.
 */
const FORM = { pieces: [] as string[], n: 0 };
type Form = typeof FORM;

const add = (out: Form, piece: string) => {
  out.pieces[out.n++] = piece;
};

/** Puts `value`'s hashed form (as the value of `key`, if any) into `out`; false when it has none (undefined, left out). */
function put(value: unknown, key: string | undefined, out: Form): boolean {
  if (key !== undefined && SECRET_KEYS.has(key)) {
    if (value === undefined) return false;
    add(out, '"[redacted]"');
    return true;
  }
  if (value === null || typeof value !== "object") {
    if (value === undefined) return false;
    if (typeof value === "string") {
      if (key === "number" && CARD_NUMBER.test(value)) {
        add(out, `"${value.slice(0, 6)}*${value.slice(-4)}/${value.length}"`);
        return true;
      }
      if (PLAIN_STRING.test(value)) {
        add(out, '"');
        add(out, value);
        add(out, '"');
        return true;
      }
    }
    add(out, JSON.stringify(value) ?? "null");
    return true;
  }
  if (Array.isArray(value)) {
    add(out, "[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) add(out, ",");
      if (!put(value[i], undefined, out)) add(out, "null");
    }
    add(out, "]");
    return true;
  }
  add(out, "{");
  let first = true;
  for (const k of sortKeys(Object.keys(value))) {
    const mark = out.n;
    if (!first) add(out, ",");
    add(out, quotedKey(k));
    add(out, ":");
    if (put((value as Record<string, unknown>)[k], k, out)) first = false;
    else out.n = mark;
  }
  add(out, "}");
  return true;
}

/**
 * The keys in place by UTF-16 code units (`<`, as canonicalJson sorts them). A body's objects have a
 * few to a few dozen keys: an insertion sort allocates nothing, where Array#sort copies into a work
 * array each time (~3 KB of a card payment's allocations, docs/performance.md "The cost account").
 */
function sortKeys(keys: string[]): string[] {
  if (keys.length > 64) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i] as string;
    let j = i - 1;
    while (j >= 0 && (keys[j] as string) > k) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = k;
  }
  return keys;
}

/** JSON.stringify of a key, kept for the few hundred key names bodies use (the hash runs on every create). */
const QUOTED = new Map<string, string>();
function quotedKey(k: string): string {
  let q = QUOTED.get(k);
  if (q === undefined) {
    q = JSON.stringify(k);
    if (QUOTED.size < 1000) QUOTED.set(k, q);
  }
  return q;
}

/** The two answers to a requestId used again (docs/coverage.md): nothing else records them. */
export const IDEMPOTENCY: Record<"replayed" | "conflict", Behaviour> = {
  replayed: {
    id: "idempotency.replayed",
    area: "idempotency",
    title: "A create sent again with its requestId and the same body: the first answer replayed",
    cause: cause({ act: "pay" }, { act: "again", changed: false }),
  },
  conflict: {
    id: "idempotency.conflict",
    area: "idempotency",
    title: "A requestId used again with another body: refused (409)",
    cause: cause({ act: "pay" }, { act: "again", changed: true }),
  },
};

export interface IdempotencyDeps {
  db: Db;
  clock: Clock;
  /** Notes a replay for the coverage report (docs/coverage.md). */
  seen?: Seen;
}

/** The id a stored answer names (a transaction, a refund, a subscription), for a replay's evidence. */
function answerIds(body: unknown): { transactionId?: string; subscriptionId?: string } {
  const b = (body ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" ? v : undefined);
  const transactionId = str(b.transactionId) ?? str(b.refundId);
  const subscriptionId = str(b.subscriptionId);
  return { ...(transactionId ? { transactionId } : {}), ...(subscriptionId ? { subscriptionId } : {}) };
}

export class IdempotencyService {
  private readonly find;
  private readonly insert;

  constructor(private readonly deps: IdempotencyDeps) {
    // better-sqlite3 directly, its row as an array: drizzle's prepared query maps each result
    // through its columns, ~2 µs of a create that finds nothing (docs/performance.md "The cost account")
    this.find = lazy(() =>
      deps.db.$client
        .prepare("SELECT body_hash, response FROM idempotency_keys WHERE merchant_key = ? AND operation = ? AND request_id = ?")
        .raw(),
    );
    this.insert = preparedInsert(deps.db.$client, idempotencyKeys);
  }

  /** The hash a request body is kept under: card numbers and secrets reduced first (hashedForm). */
  hash(requestBody: unknown): string {
    return sha256Hex(hashedForm(requestBody) ?? "null");
  }

  /**
   * Inside the caller's transaction or batch: the first response kept under `key`, or undefined when
   * there is none; 409 when it was kept for another body.
   */
  replay<T>(key: IdempotencyKey, bodyHash: string): T | undefined {
    const existing = this.find.get(key.merchantKey, key.operation, key.requestId) as [string, string] | undefined;
    if (!existing) return undefined;
    if (existing[0] !== bodyHash) {
      throw asBehaviour(conflict("requestId already used with different parameters"), IDEMPOTENCY.conflict.id);
    }
    const body = JSON.parse(existing[1]) as T;
    (this.deps.seen ?? UNSEEN)(IDEMPOTENCY.replayed.id, { ...answerIds(body), at: this.deps.clock.nowMs() });
    return body;
  }

  /**
   * Runs `create` (synchronous, no I/O) inside one IMMEDIATE transaction with the key check and
   * the key write. If `create` throws, nothing is stored and the requestId stays free.
   */
  run<T>(key: IdempotencyKey, requestBody: unknown, create: () => T): IdempotentResult<T> {
    const bodyHash = this.hash(requestBody);
    return inTransaction(this.deps.db, () => {
      const first = this.replay<T>(key, bodyHash);
      if (first !== undefined) return { body: first, replayed: true };
      const body = create();
      this.insert({ ...key, bodyHash, httpStatus: 200, response: JSON.stringify(body), createdAt: this.deps.clock.nowMs() });
      return { body, replayed: false };
    });
  }
}
