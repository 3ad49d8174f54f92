/**
 * The registry of the isolated sandboxes of one server (docs/parallel-suites.md): its public calls,
 * each handed to the file of its job:
 * - making.ts: create, fork and load, one path from a source to an open sandbox;
 * - routing.ts: a request to its sandbox, opening it first when it is closed;
 * - ticking.ts: once a second, expiry, due work, idle sandboxes closed;
 * - closing.ts: closing one, deleting one, shutdown.
 * They share table.ts (the rows and the open sandboxes). Underneath: storage.ts (where a database
 * lives: a file or memory), and the builder src/compose.ts hands over (composition.ts), which builds
 * a sandbox's services over its database with the same composition root as the root sandbox's.
 *
 * Isolation holds by construction: no query has a sandbox filter, because no composition can reach
 * another's database, and a token signed by one sandbox's secret fails in every other (a copy's
 * lineage aside, docs/snapshots.md). An idle sandbox costs a row and a closed file (or its memory
 * database): its clock keeps running from an anchor in that row, and a closed sandbox whose work
 * falls due (a webhook retry, a 3DS timeout, a charge) is opened to run it.
 *
 * Fairness: each open composition has its own due-work runner (which yields every 10 ms of work)
 * and its own webhook dispatcher (its own per-destination limits and sockets), so one sandbox's
 * year-long advance or silent receiver stalls only itself.
 *
 * LIMITATIONS:
 * - the time scale is the server's (SANDBOX_TIME_SCALE); a sandbox cannot have its own;
 * - a closed sandbox's clock keeps running while the server runs, and stops while it is down (as
 *   the root's does).
 */

import { Closing } from "./closing.js";
import { clearImageFiles } from "./files.js";
import { type Created, type CreateInput, Making } from "./making.js";
import { Routing } from "./routing.js";
import { RowStore } from "./rows.js";
import { SandboxStorage } from "./storage.js";
import { type RegistryOptions, type SandboxSummary, Table } from "./table.js";
import { flush, tick } from "./ticking.js";

export type { ComposeSpec, Composition, ForkSource, SandboxBuilder, SandboxMerchant } from "./composition.js";
export { basePathOf, originPath } from "./files.js";
export type { Created, CreateInput } from "./making.js";
export type { Storage } from "./storage.js";
export type { RegistryOptions, SandboxSummary } from "./table.js";
export { DEFAULT_TTL, MAX_TTL_MS, MIN_TTL_MS, SANDBOX_ID, sandboxNotFound } from "./validation.js";

export class SandboxRegistry {
  private readonly t: Table;
  private readonly closing: Closing;
  private readonly routing: Routing;
  private readonly making: Making;

  constructor(options: RegistryOptions) {
    const folder = options.dbPath === ":memory:" ? undefined : `${options.dbPath}-sandboxes`;
    const storage = new SandboxStorage({
      folder,
      groupCommit: options.groupCommit,
      freshImage: () => options.builder.freshImage(),
      logger: options.logger,
    });
    this.t = new Table(options, new RowStore(options.rootDb), storage);
    for (const row of this.t.store.recover(options.wallNow(), options.scale)) this.t.rows.set(row.id, row);
    if (folder !== undefined) void clearImageFiles(folder);
    this.closing = new Closing(this.t);
    this.routing = new Routing(this.t, this.closing);
    this.making = new Making(this.t, this.routing, this.closing);
  }

  /** How many exist (open or closed). */
  get size(): number {
    return this.t.rows.size;
  }

  /** How many compositions are open now (benchmarks, tests). */
  get openCount(): number {
    return this.t.opened.size;
  }

  /** POST /_sandbox/sandboxes: a new sandbox, opened; with `from`, a copy of that sandbox (or the root) as it is now. */
  create(input: CreateInput): Promise<Created> {
    return this.making.create(input);
  }

  /** POST /_sandbox/sandboxes with a snapshot file: a new sandbox started from it (docs/snapshots.md). */
  load(bytes: Buffer, input: Pick<CreateInput, "name" | "ttl" | "storage">): Promise<Created> {
    return this.making.load(bytes, input);
  }

  list(): SandboxSummary[] {
    return [...this.t.rows.values()].sort((a, b) => a.createdReal - b.createdReal).map((r) => this.t.summary(r));
  }

  get(id: string): SandboxSummary {
    return this.t.summary(this.t.rowOf(id));
  }

  /**
   * DELETE /_sandbox/sandboxes/{id}: it is gone at once (404 from then on); its requests finish
   * first, then its webhooks due by now go out and are answered (bounded by the attempt timeout),
   * unless `force` drops them (docs/parallel-suites.md#deleting-a-sandbox).
   */
  async delete(id: string, opts: { force?: boolean } = {}): Promise<void> {
    this.t.rowOf(id);
    await this.closing.remove(id, { settleDue: opts.force !== true });
  }

  /** A request under `/sandboxes/{id}`: to its composition, opened first when closed. */
  fetch(id: string, req: Request, env: unknown): Promise<Response> {
    return this.routing.fetch(id, req, env);
  }

  /** Once a real second (main.ts's timer). */
  tick(): Promise<void> {
    return tick(this.t, this.routing, this.closing);
  }

  /** Shutdown: every open sandbox finishes (webhooks get `graceMs`), saves its clock and closes. */
  async closeAll(graceMs: number): Promise<void> {
    await this.closing.closeAll(graceMs);
    flush(this.t, this.t.o.wallNow());
  }
}
