/**
 * Claiming due deliveries (docs/webhooks.md): inside the caller's transaction, parked rows whose
 * destination has room again go first (they were due first), then rows due now, a chunk at a
 * time; each is marked in flight, or parked when its destination is full (destinations.ts).
 */
import { performance } from "node:perf_hooks";
import { type Destinations, destinationOf, type Flight, type ParkedRow } from "./destinations.js";
import type { DueRow, WebhooksRepo } from "./webhooks.repo.js";

/**
 * Due rows taken off the due index per claim at most (the runner calls run() again while more are
 * due), read CLAIM_CHUNK at a time: a claim stops after the chunk that passes its deadline (a
 * claim of 1,000 rows held the event loop for 20–45 ms during a long advance).
 */
const CLAIM_BATCH = 1_000;
const CLAIM_CHUNK = 100;

/**
 * Claims parked rows that now have room, then rows due by `dueBy` (parking those whose destination
 * is full), into `out`, a chunk at a time until CLAIM_BATCH rows or the first chunk that ends past
 * `deadline` (a `performance.now()` instant). True when it stopped with a full chunk (more may be due).
 */
export function claimDue(
  repo: WebhooksRepo,
  lanes: Destinations,
  dueBy: number,
  at: number,
  out: Flight[],
  deadline = Number.POSITIVE_INFINITY,
): boolean {
  claimParked(repo, lanes, at, out);
  for (let taken = 0; taken < CLAIM_BATCH; ) {
    // each chunk's rows leave the due index (in flight or parked), so the next read continues after them
    const rows = repo.dueRows(dueBy, Math.min(CLAIM_CHUNK, CLAIM_BATCH - taken));
    const inFlight: number[] = [];
    const parked: number[] = [];
    for (const row of rows) {
      const key = destinationOf(row.url);
      const dest = lanes.of(key);
      if (dest.active < lanes.concurrency) {
        out.push(lanes.fly(row, key, dest, at));
        inFlight.push(row.seq);
      } else {
        parked.push(row.seq);
        lanes.park(dest, row.seq, row.id, at);
      }
    }
    repo.markInFlightRows(inFlight, at);
    repo.parkRows(parked);
    taken += rows.length;
    if (rows.length < CLAIM_CHUNK) return false;
    if (performance.now() > deadline) return true;
  }
  return true;
}

/**
 * Parked rows were due first: they go before anything newly due; read and marked in flight as many
 * at a time as their destination has room for.
 */
function claimParked(repo: WebhooksRepo, lanes: Destinations, at: number, out: Flight[]): void {
  const claimed: number[] = [];
  for (const key of [...lanes.ready]) {
    const dest = lanes.get(key);
    if (!dest) continue;
    while (dest.active < lanes.concurrency && dest.queue.length > 0) {
      const want: ParkedRow[] = [];
      while (want.length < lanes.concurrency - dest.active && dest.queue.length > 0) want.push(lanes.unpark(dest));
      const rows = new Map<number, DueRow>();
      for (const row of repo.parkedRows(want.map((p) => p.seq))) rows.set(row.seq, row);
      for (const p of want) {
        const row = rows.get(p.seq);
        if (!row || row.id !== p.id) continue; // reset or settled meanwhile
        out.push(lanes.fly(row, key, dest, at));
        claimed.push(row.seq);
      }
    }
    lanes.ready.delete(key);
  }
  repo.markInFlightRows(claimed, at);
}
