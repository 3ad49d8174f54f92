/**
 * How sandboxes close and go (docs/parallel-suites.md): a close (idle, beyond the open limit, or at
 * shutdown) stops its services, keeps its clock's anchor in its row and lets its database go
 * (storage.ts: a file closed last by the checkpointer thread, a memory one kept); a deletion (DELETE,
 * or its TTL ran out) first lets its requests under way answer and its webhooks due settle, then
 * removes everything it had. Closes run one after another, never a burst of them in one turn.
 */
import type { Composition } from "./composition.js";
import { wakeOf } from "./eviction.js";
import type { Opened } from "./storage.js";
import type { Table } from "./table.js";

/** Real ms a deletion waits for the requests under way in the sandbox to answer. */
const DRAIN_MS = 5_000;

export class Closing {
  constructor(private readonly t: Table) {}

  /**
   * Closes an open sandbox (a second call shares the first): with `deletion` for good, else its row
   * keeps where its clock was and when its work falls due. Settles when its database is let go.
   */
  close(id: string, graceMs = 0, deletion?: { settleDue: boolean }): Promise<void> {
    const t = this.t;
    const entry = t.opened.get(id);
    if (!entry) return Promise.resolve();
    entry.closing ??= (async () => {
      try {
        const closed = await entry.comp.close(graceMs, deletion);
        const row = t.rows.get(id);
        const { released } = await t.storage.close(id, entry.opened, row === undefined);
        if (row) {
          row.clockMs = closed.nowMs;
          row.clockReal = t.o.wallNow();
          row.wakeReal = wakeOf(closed.nextDueAt, row, t.o.scale);
          t.store.saveAnchor(row);
        } else {
          // deleted: its files are removed next, once the thread has closed them
          await released;
        }
      } catch (err) {
        t.o.logger.error({ err, sandbox: id }, "closing a sandbox failed");
      } finally {
        t.opened.delete(id);
      }
    })();
    return entry.closing;
  }

  /**
   * Closes these, one after another (each one's work in turns of its own, requests served between);
   * one used since it was chosen (a request under way, or a later last use) is left open.
   */
  async closeEach(ids: Iterable<string>): Promise<void> {
    const chosen = [...ids].map((id) => ({ id, lastReal: this.t.opened.get(id)?.lastReal }));
    for (const { id, lastReal } of chosen) {
      const e = this.t.opened.get(id);
      if (!e || e.closing || e.active > 0 || e.lastReal !== lastReal || e.comp.busy()) continue;
      await this.close(id);
    }
  }

  /** Deletes it (expired, or DELETE): its requests under way answer first; by default its webhooks on the wire are cut off. */
  async remove(id: string, deletion = { settleDue: false }): Promise<void> {
    const t = this.t;
    const row = t.rows.get(id);
    if (!row) return;
    t.rows.delete(id);
    t.dirty.delete(id);
    t.store.delete(row);
    const entry = t.opened.get(id);
    if (entry) {
      if (entry.active > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, DRAIN_MS);
          entry.drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      await this.close(id, 0, deletion);
    }
    await t.storage.remove(id, row.storage);
  }

  /** A composition nobody will use (its create failed late, or the server is stopping): closed, its database removed. */
  async discard(id: string, comp: Composition, opened: Opened): Promise<void> {
    try {
      await comp.close(0);
      const { released } = await this.t.storage.close(id, opened, true);
      await this.t.storage.remove(id, opened.storage, released);
    } catch (err) {
      this.t.o.logger.error({ err, sandbox: id }, "closing a sandbox failed");
    }
  }

  /** Shutdown: every open sandbox finishes (webhooks get `graceMs`), saves its clock and closes. */
  async closeAll(graceMs: number): Promise<void> {
    this.t.stopped = true;
    await Promise.all([...this.t.opened.keys()].map((id) => this.close(id, graceMs)));
  }
}
