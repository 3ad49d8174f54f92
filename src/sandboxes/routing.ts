/**
 * A request under `/sandboxes/{id}` to its sandbox (docs/parallel-suites.md): a closed one is opened
 * first (its database from storage.ts, its services composed again; concurrent first requests share
 * one open), its TTL renewed, its place in the least-recently-used order moved to the end, and the
 * request handed to its composition, which hands it on to the one app of every sandbox with its
 * services (src/app.ts createSandboxesApp; that app's router sees the path without the prefix).
 */
import type { Closing } from "./closing.js";
import type { Composition } from "./composition.js";
import { expired } from "./eviction.js";
import { basePathOf } from "./files.js";
import type { Opened } from "./storage.js";
import type { Kept, OpenEntry, Table } from "./table.js";
import { sandboxNotFound } from "./validation.js";

export class Routing {
  constructor(
    private readonly t: Table,
    private readonly closing: Closing,
  ) {}

  async fetch(id: string, req: Request, env: unknown): Promise<Response> {
    const t = this.t;
    let entry = t.opened.get(id);
    if (entry?.closing) {
      // one being deleted is gone already: no wait for its webhooks
      if (!t.rows.has(id)) throw sandboxNotFound(id);
      await entry.closing;
      entry = t.opened.get(id);
    }
    const row = t.rows.get(id);
    if (!row || t.stopped) throw sandboxNotFound(id);
    const now = t.o.wallNow();
    if (expired(row, now)) {
      await this.closing.remove(id);
      throw sandboxNotFound(id);
    }
    if (!entry) {
      entry = await this.open(row);
      if (t.rows.get(id) !== row) throw sandboxNotFound(id);
    }
    row.lastUsedReal = now;
    t.dirty.add(id);
    entry.lastReal = now;
    // most recently used last: the overflow closes from the front
    t.opened.delete(id);
    t.opened.set(id, entry);
    entry.active++;
    try {
      return await entry.comp.fetch(req, env);
    } finally {
      entry.active--;
      entry.lastReal = t.o.wallNow();
      if (entry.active === 0) entry.drained?.();
    }
  }

  /** Opens a closed sandbox; concurrent callers share the one open. */
  open(row: Kept): Promise<OpenEntry> {
    let opening = this.t.opening.get(row.id);
    if (!opening) {
      opening = this.openNow(row).finally(() => this.t.opening.delete(row.id));
      this.t.opening.set(row.id, opening);
    }
    return opening;
  }

  private async openNow(row: Kept): Promise<OpenEntry> {
    const t = this.t;
    const id = row.id;
    let opened: Opened | undefined;
    let comp: Composition;
    try {
      const got = await t.storage.open(id, row.storage, t.madeHere.has(row));
      opened = got.opened;
      comp = t.o.builder.compose(
        {
          id,
          made: got.made,
          path: opened.path,
          anchorNowMs: t.anchorNow(row),
          startMs: row.startMs,
          scenario: row.scenario ?? undefined,
          origin: () => t.storage.origin(id, row.storage),
          basePath: basePathOf(id),
        },
        opened.db,
      );
    } catch (err) {
      const deleted = t.rows.get(id) !== row;
      const released = opened ? (await t.storage.close(id, opened, deleted)).released : undefined;
      if (!deleted) throw err;
      // deleted while its file was prepared: its files went from under the open
      await t.storage.remove(id, row.storage, released);
      throw sandboxNotFound(id);
    }
    if (t.rows.get(id) !== row) {
      // deleted while its file was prepared
      void this.closing.discard(id, comp, opened);
      throw sandboxNotFound(id);
    }
    if (t.stopped) {
      // the server is stopping: closed again as it was, its files kept
      void comp.close(0).then(() => t.storage.close(id, opened, false));
      throw sandboxNotFound(id);
    }
    const entry: OpenEntry = { comp, opened, active: 0, lastReal: t.o.wallNow() };
    t.opened.set(id, entry);
    t.store.markOpen(row);
    return entry;
  }
}
