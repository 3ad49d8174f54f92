/**
 * Attempts that never got their answer (docs/webhooks.md: durable deliveries): after a crash (the
 * rows a previous process left in flight) or at a stop or a sandbox's deletion (the requests on the
 * wire), each is recorded as interrupted and rescheduled like a failed one, so none is lost and no
 * attempt number repeats; a pending head that lost its due time (a parked row, say) gets one.
 */
import { type Db, inTransaction } from "../db/client.js";
import type { Flight } from "./destinations.js";
import { type AttemptResults, interrupted } from "./results.js";
import { DELETED_ERROR } from "./retries.js";
import type { WebhooksRepo } from "./webhooks.repo.js";

/** Startup: what a crash left in flight, recorded as interrupted at `now()`. Returns how many. */
export function recoverInFlight(db: Db, repo: WebhooksRepo, results: AttemptResults, now: () => number): number {
  return inTransaction(db, () => {
    const at0 = now();
    const rows = repo.inFlightRows();
    for (const row of rows) {
      const at = row.inFlightSince ?? at0;
      results.record(interrupted({ ...row, headers: JSON.stringify(row.headers) }, row.attemptCount, at, at0));
    }
    redue(repo, at0);
    return rows.length;
  });
}

/**
 * The attempts on the wire, recorded as interrupted at `now` in one transaction: the last ones of
 * their deliveries when the sandbox is being deleted (nothing would retry them).
 */
export function recordInterrupted(db: Db, repo: WebhooksRepo, results: AttemptResults, flights: Flight[], now: number): void {
  inTransaction(db, () => {
    for (const f of flights) {
      const o = interrupted(f.row, f.n, f.at, now);
      results.record(results.deleting ? { ...o, error: DELETED_ERROR } : o);
    }
    redue(repo, now);
  });
}

/** Pending heads of their orderKey with no due time (parked rows) are due at `now`. */
function redue(repo: WebhooksRepo, now: number): void {
  for (const row of repo.orphanHeads()) repo.setNextAttempt(row.seq, now);
}
