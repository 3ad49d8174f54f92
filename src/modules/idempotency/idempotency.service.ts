/**
 * Idempotency on `requestId` (interface §4.3 rule 4; CONTRACT §3), one mechanism for every
 * create endpoint. The stored response and its unique key are written in the same database
 * transaction as the create, so a duplicate — sequential or concurrent — never creates twice:
 * the same body replays the first response (HTTP 200), another body is a 409.
 */
import { and, eq } from "drizzle-orm";
import { type Db, inTransaction } from "../../db/client.js";
import { idempotencyKeys } from "../../db/schema/index.js";
import type { Clock } from "../../platform/clock.js";
import { canonicalJson, sha256Hex } from "../../platform/crypto.js";
import { conflict } from "../../platform/errors.js";

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

export class IdempotencyService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /**
   * Runs `create` (synchronous, no I/O) inside one IMMEDIATE transaction with the key check and
   * the key write. If `create` throws, nothing is stored and the requestId stays free.
   */
  run<T>(key: IdempotencyKey, requestBody: unknown, create: () => T): IdempotentResult<T> {
    const bodyHash = sha256Hex(canonicalJson(requestBody));
    return inTransaction(this.db, () => {
      const existing = this.db
        .select()
        .from(idempotencyKeys)
        .where(
          and(
            eq(idempotencyKeys.merchantKey, key.merchantKey),
            eq(idempotencyKeys.operation, key.operation),
            eq(idempotencyKeys.requestId, key.requestId),
          ),
        )
        .get();
      if (existing) {
        if (existing.bodyHash !== bodyHash) throw conflict("requestId already used with different parameters");
        return { body: JSON.parse(existing.response) as T, replayed: true };
      }
      const body = create();
      this.db
        .insert(idempotencyKeys)
        .values({ ...key, bodyHash, httpStatus: 200, response: JSON.stringify(body), createdAt: this.clock.nowMs() })
        .run();
      return { body, replayed: false };
    });
  }
}
