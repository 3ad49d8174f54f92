/**
 * The registry's tick, once a real second (main.ts's timer; docs/parallel-suites.md): expired
 * sandboxes deleted, closed ones whose work fell due opened (one after another), what is due started in every open one,
 * idle ones and those beyond the open limit closed one after another (eviction.ts chooses), and the
 * last uses and the heartbeat saved in the root's database; the memory of deleted memory-backed
 * sandboxes given back to the system (storage.ts).
 */
import type { Closing } from "./closing.js";
import { due, expired, idle, overflow } from "./eviction.js";
import type { Routing } from "./routing.js";
import type { Kept, Table } from "./table.js";

export async function tick(t: Table, routing: Routing, closing: Closing): Promise<void> {
  if (t.stopped) return;
  const { logger } = t.o;
  const now = t.o.wallNow();
  const wake: Kept[] = [];
  for (const row of [...t.rows.values()]) {
    if (expired(row, now)) {
      logger.info({ sandbox: row.id }, `sandbox ${row.id} expired (unused for ${row.ttlMs / 1000} s)`);
      await closing.remove(row.id);
    } else if (!t.opened.has(row.id) && due(row, now)) wake.push(row);
  }
  // opened one after another, as closes are (a storm's forks whose copied work fell due are many
  // short turns); their due work starts below with every open one's
  for (const row of wake) {
    if (t.rows.get(row.id) !== row || t.opened.has(row.id)) continue;
    await routing.open(row).catch((err: unknown) => logger.error({ err, sandbox: row.id }, "opening a sandbox failed"));
  }
  for (const [id, entry] of t.opened) {
    if (entry.closing) continue;
    entry.comp.runDue().catch((err: unknown) => logger.error({ err, sandbox: id }, "background work failed"));
  }
  // what this tick closes is closed when it returns (a closed sandbox's row holds its clock and wake
  // time), one after another: a storm's 200 closes are 200 short turns, requests answered between
  const idleIds = idle(t.opened, now, t.idleMs);
  const staying = new Map([...t.opened].filter(([id]) => !idleIds.includes(id)));
  await closing.closeEach([...idleIds, ...overflow(staying, t.maxOpen)]);
  // ones closing for another reason (a deletion waits for its webhooks) are not waited for
  await Promise.all([...t.opened].filter(([id]) => t.rows.has(id)).map(([, e]) => e.closing));
  flush(t, now);
  t.storage.giveBack();
}

/** Last use and the heartbeat (how far the clocks ran before a crash) go to the root's database. */
export function flush(t: Table, now: number): void {
  const rows = [...t.dirty].map((id) => t.rows.get(id)).filter((r): r is Kept => r !== undefined);
  t.dirty.clear();
  t.store.flush(rows, now);
}
