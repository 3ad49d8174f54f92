/**
 * `POST /_sandbox/transactions/{id}/complete` (CONTRACT §4): finishes a transaction waiting in
 * PROCESSING/PENDING, with its webhook. The transactions table is shared by several areas, each
 * with its own callback shape, so each area registers a completer for its kinds here.
 */
import { eq } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { transactions } from "../db/schema/index.js";
import { conflict, notFound } from "../platform/errors.js";

export interface CompleteInput {
  status: "SUCCEED" | "FAILED";
  /** Only with FAILED; the completer picks a default when absent. */
  declineCode?: number | undefined;
}

export interface CompleteResult {
  transactionId: string;
  transactionStatus: string;
  declineCode: number | null;
}

/** Runs inside its own database transaction; throws 409 when the transaction is not waiting. */
export type Completer = (id: string, input: CompleteInput) => CompleteResult;

export class TransactionCompletions {
  private readonly completers = new Map<string, Completer>();

  constructor(private readonly db: Db) {}

  /** An area declares which transaction kinds it finishes (payments: card_payment, card_charge, ...). */
  register(kinds: readonly string[], completer: Completer): void {
    for (const k of kinds) this.completers.set(k, completer);
  }

  /** Unknown id → 404; a kind nobody completes → 409; else the area's completer decides. */
  complete(id: string, input: CompleteInput): CompleteResult {
    const row = this.db.select({ kind: transactions.kind }).from(transactions).where(eq(transactions.id, id)).get();
    if (!row) throw notFound(`Transaction not found: ${id}`);
    const completer = this.completers.get(row.kind);
    if (!completer) throw conflict(`Transaction ${id} (${row.kind}) cannot be completed from the control plane`);
    return completer(id, input);
  }
}
