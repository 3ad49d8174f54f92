/**
 * Many isolated sandboxes in one server (docs/parallel-suites.md).
 * A sandbox is one composition of the whole service graph over its own SQLite database and its own
 * clock, built by the same composition root as the root sandbox (src/compose.ts hands this registry
 * the builder). Isolation holds by construction: no query has a sandbox filter, because no
 * composition can reach another's database, and a token signed by one sandbox's secret fails in
 * every other (a copy's lineage aside, docs/snapshots.md).
 *
 * The registry creates, opens (on first use), closes (when idle, least recently used first) and
 * deletes compositions; it owns the TTL (real time, renewed by every request) and the limit. An idle
 * sandbox costs a closed file and a row: its clock keeps running from an anchor in that row, and a
 * closed sandbox whose work falls due (a webhook retry, a 3DS timeout, a charge) is opened to run it.
 * With `:memory:` a closed sandbox is its serialized image in memory. Every sandbox is opened from a
 * database image: a fresh one's is the empty migrated image, a fork's and a loaded snapshot's a copy.
 *
 * Its helpers, one job each: validation.ts (what a create checks), rows.ts (its rows, the heartbeat,
 * recovery after a stop), eviction.ts (when sandboxes close and go), files.ts (where they live),
 * composition.ts (what it asks of a composition).
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

import { MAX_CLOCK_MS } from "../control/control.service.js";
import type { Db } from "../db/client.js";
import type { Logger } from "../logger.js";
import { BUILTIN_MERCHANT } from "../modules/merchants/merchants.service.js";
import { toIso } from "../platform/clock.js";
import { badRequest, tooMany } from "../platform/errors.js";
import { type Ids, timeOrderedIds } from "../platform/ids.js";
import { loadSnapshot, type State } from "../snapshots/images.js";
import type { SnapshotMeta } from "../snapshots/snapshot-file.js";
import type { Composition, OpenSpec, SandboxMerchant } from "./composition.js";
import { anchorNow, due, expired, idle, overflow, wakeOf } from "./eviction.js";
import { basePathOf, databasePath, removeFiles, writeCopy } from "./files.js";
import { type Row, RowStore } from "./rows.js";
import { checkFork, checkName, fromNotFound, sandboxNotFound, startOf, ttlOf } from "./validation.js";

export type { Composition, OpenSpec, SandboxMerchant } from "./composition.js";
export { basePathOf, originPath } from "./files.js";
export { DEFAULT_TTL, MAX_TTL_MS, MIN_TTL_MS, SANDBOX_ID, sandboxNotFound } from "./validation.js";

export interface RegistryOptions {
  /** The root's database: the registry's rows live there. */
  rootDb: Db;
  /** SANDBOX_DB: sandbox files go in the folder `<db>-sandboxes/`; `:memory:` keeps them in memory. */
  dbPath: string;
  maxSandboxes: number;
  /** Virtual seconds per real second (the server's). */
  scale: number;
  /** Real time, ms (tests move it by hand). */
  wallNow: () => number;
  /** The root's virtual now: where a sandbox without a startTime starts. */
  rootNow: () => number;
  /** The root's public URL (a sandbox's baseUrl is `<it>/sandboxes/<id>`). */
  publicUrl: () => string;
  /** A fresh database image: migrated, the built-in merchant seeded, no instance secret. */
  image: () => Buffer;
  /** The root's state now and what a copy of it resets to (a fork of the root). */
  rootState: () => { state: State; meta: Omit<SnapshotMeta, "now"> };
  /** Opens a composition; its file is prepared off the event loop (src/compose.ts). */
  open: (spec: OpenSpec) => Promise<Composition>;
  logger: Logger;
  /** Compositions kept open at most (least recently used closed first). */
  maxOpen?: number;
  /** Real ms without a request after which an open sandbox with nothing in flight is closed. */
  idleMs?: number;
}

export interface SandboxSummary {
  id: string;
  name: string | null;
  baseUrl: string;
  now: string;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
}

export interface CreateInput {
  name?: string | undefined;
  startTime?: string | undefined;
  scenario?: unknown;
  ttl?: string | undefined;
  /** A fork: `root` or a sandbox id whose state the new one starts from (docs/snapshots.md). */
  from?: string | undefined;
}

type Created = SandboxSummary & { merchant: SandboxMerchant };

/** What a new sandbox opens from (docs/snapshots.md): an image, and where its clock and its reset are. */
interface Source {
  image: Buffer;
  /** A copy's state (fork or snapshot): its clock is at this now, and its reset can go back to `image`. */
  copied?: { nowMs: number } | undefined;
  startMs: number;
  scenario: unknown;
}

interface OpenEntry {
  comp: Composition;
  /** Requests under its base URL now. */
  active: number;
  /** Called when `active` drops to 0 (a delete waiting for the requests under way). */
  drained?: (() => void) | undefined;
  lastReal: number;
  closing?: Promise<void>;
}

export class SandboxRegistry {
  private readonly rows = new Map<string, Row>();
  private readonly opened = new Map<string, OpenEntry>();
  /** `:memory:` sandboxes that are closed: their images. */
  private readonly images = new Map<string, Buffer>();
  /** `:memory:` copies: the image each was made from (a file-backed one's is a file beside its database). */
  private readonly origins = new Map<string, Buffer>();
  private readonly dirty = new Set<string>();
  /** Opens under way (a closed sandbox's first requests share one). */
  private readonly opening = new Map<string, Promise<OpenEntry>>();
  /** Rows whose files this process wrote from its image. */
  private readonly madeHere = new WeakSet<Row>();
  /** Creates under way: they count against the limit. */
  private creating = 0;
  private readonly ids: Ids;
  private readonly store: RowStore;
  /** The folder of their files; undefined with `:memory:`. */
  private readonly folder: string | undefined;
  private readonly maxOpen: number;
  private readonly idleMs: number;
  private imageCache: Buffer | undefined;
  private stopped = false;

  constructor(private readonly options: RegistryOptions) {
    this.ids = timeOrderedIds({ nowMs: options.wallNow });
    this.folder = options.dbPath === ":memory:" ? undefined : `${options.dbPath}-sandboxes`;
    this.maxOpen = Math.max(1, options.maxOpen ?? 64);
    this.idleMs = options.idleMs ?? 30_000;
    this.store = new RowStore(options.rootDb);
    for (const row of this.store.recover(options.wallNow(), options.scale)) this.rows.set(row.id, row);
  }

  /** How many exist (open or closed). */
  get size(): number {
    return this.rows.size;
  }

  /** How many compositions are open now (benchmarks, tests). */
  get openCount(): number {
    return this.opened.size;
  }

  /**
   * POST /_sandbox/sandboxes: a new sandbox, opened, its scenario loaded; with `from`, a copy of that
   * sandbox (or the root) as it is now. Bad input is a 400 naming the field and leaves nothing
   * behind; an unknown `from` a 404; one over the limit a 429.
   */
  async create(input: CreateInput): Promise<Created> {
    if (input.from !== undefined) return this.fork(input, input.from);
    this.checkStopped();
    ttlOf(input.ttl, this.options.wallNow());
    const startMs = startOf(input.startTime) ?? this.options.rootNow();
    return this.openFrom(input, { image: this.image(), startMs, scenario: null });
  }

  /** A copy of `from` (`root` or a sandbox's id) as it is at this instant (docs/snapshots.md). */
  private async fork(input: CreateInput, from: string): Promise<Created> {
    checkFork(input);
    this.checkInput(input);
    if (from === "root") {
      const { state, meta } = this.options.rootState();
      return this.openFrom(input, { image: state.image, copied: { nowMs: state.nowMs }, ...meta });
    }
    const row = this.rows.get(from);
    if (!row || this.stopped) throw fromNotFound(from);
    let entry = this.opened.get(from);
    if (entry?.closing) {
      await entry.closing;
      entry = this.opened.get(from);
    }
    entry ??= await this.openRow(row);
    const state = entry.comp.state();
    return this.openFrom(input, {
      image: state.image,
      copied: { nowMs: state.nowMs },
      startMs: row.startMs,
      scenario: row.scenario,
    });
  }

  /** POST /_sandbox/sandboxes with a snapshot file: a new sandbox started from it (docs/snapshots.md). */
  async load(bytes: Buffer, input: Pick<CreateInput, "name" | "ttl">): Promise<Created> {
    this.checkInput(input);
    const { state, meta } = loadSnapshot(bytes);
    const startMs = Number.isFinite(meta.startMs) ? meta.startMs : state.nowMs;
    return this.openFrom(input, {
      image: state.image,
      copied: { nowMs: state.nowMs },
      startMs,
      scenario: meta.scenario ?? null,
    });
  }

  list(): SandboxSummary[] {
    return [...this.rows.values()].sort((a, b) => a.createdReal - b.createdReal).map((r) => this.summary(r));
  }

  get(id: string): SandboxSummary {
    return this.summary(this.rowOf(id));
  }

  /**
   * DELETE /_sandbox/sandboxes/{id}: it is gone at once (404 from then on); its requests finish
   * first, then its webhooks due by now go out and are answered (bounded by the attempt timeout),
   * unless `force` drops them (docs/parallel-suites.md#deleting-a-sandbox).
   */
  async delete(id: string, opts: { force?: boolean } = {}): Promise<void> {
    this.rowOf(id);
    await this.remove(id, { settleDue: opts.force !== true });
  }

  /**
   * A request under `/sandboxes/{id}`: opens the sandbox if it is closed, renews its TTL and hands
   * the request to its composition (which strips the prefix).
   */
  async fetch(id: string, req: Request, env: unknown): Promise<Response> {
    let entry = this.opened.get(id);
    if (entry?.closing) {
      // one being deleted is gone already: no wait for its webhooks
      if (!this.rows.has(id)) throw sandboxNotFound(id);
      await entry.closing;
      entry = this.opened.get(id);
    }
    const row = this.rows.get(id);
    if (!row || this.stopped) throw sandboxNotFound(id);
    const now = this.options.wallNow();
    if (expired(row, now)) {
      await this.remove(id);
      throw sandboxNotFound(id);
    }
    if (!entry) {
      entry = await this.openRow(row);
      if (this.rows.get(id) !== row) throw sandboxNotFound(id);
    }
    row.lastUsedReal = now;
    this.dirty.add(id);
    entry.lastReal = now;
    // most recently used last: the overflow closes from the front
    this.opened.delete(id);
    this.opened.set(id, entry);
    entry.active++;
    try {
      return await entry.comp.fetch(req, env);
    } finally {
      entry.active--;
      entry.lastReal = this.options.wallNow();
      if (entry.active === 0) entry.drained?.();
    }
  }

  /**
   * Once a real second (main.ts's timer): deletes expired sandboxes, opens closed ones whose work
   * fell due, starts what is due in every open one, closes idle ones, and persists last use.
   */
  async tick(): Promise<void> {
    if (this.stopped) return;
    const { logger } = this.options;
    const now = this.options.wallNow();
    for (const row of [...this.rows.values()]) {
      if (expired(row, now)) {
        logger.info({ sandbox: row.id }, `sandbox ${row.id} expired (unused for ${row.ttlMs / 1000} s)`);
        await this.remove(row.id);
      } else if (!this.opened.has(row.id) && due(row, now)) {
        // its due work runs from the next tick on
        this.openRow(row).catch((err: unknown) => logger.error({ err, sandbox: row.id }, "opening a sandbox failed"));
      }
    }
    for (const [id, entry] of this.opened) {
      if (entry.closing) continue;
      entry.comp.runDue().catch((err: unknown) => logger.error({ err, sandbox: id }, "background work failed"));
    }
    for (const id of idle(this.opened, now, this.idleMs)) void this.closeOne(id);
    for (const id of overflow(this.opened, this.maxOpen)) void this.closeOne(id);
    // what this tick closes is closed when it returns (a closed sandbox's row holds its clock and wake
    // time); one being deleted (no row) is not waited for: its webhooks may take the attempt timeout
    await Promise.all([...this.opened].filter(([id]) => this.rows.has(id)).map(([, e]) => e.closing));
    this.flush(now);
  }

  /** Shutdown: every open sandbox finishes (webhooks get `graceMs`), saves its clock and closes. */
  async closeAll(graceMs: number): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.opened.keys()].map((id) => this.closeOne(id, graceMs)));
    this.flush(this.options.wallNow());
  }

  private checkStopped(): void {
    if (this.stopped) throw badRequest("The server is stopping");
  }

  /** What every create checks before it does anything (a fresh create checks its startTime between). */
  private checkInput(input: Pick<CreateInput, "name" | "ttl">): void {
    this.checkStopped();
    ttlOf(input.ttl, this.options.wallNow());
    this.checkLimit(input);
  }

  private checkLimit(input: Pick<CreateInput, "name">): void {
    checkName(input.name);
    const { maxSandboxes } = this.options;
    if (this.rows.size + this.creating >= maxSandboxes) throw tooMany(`Too many sandboxes (limit ${maxSandboxes})`);
  }

  /**
   * The one way a sandbox comes to be: opened from a database image (a fresh one's is the empty,
   * migrated image; a fork's and a loaded snapshot's are copies), its clock at its start or at its
   * source's now, its scenario loaded.
   */
  private async openFrom(input: CreateInput, from: Source): Promise<Created> {
    this.checkLimit(input);
    const now = this.options.wallNow();
    const ttlMs = ttlOf(input.ttl, now);
    const id = this.ids.next("sandbox");
    const start = from.copied ? from.copied.nowMs : from.startMs;
    const row: Row = {
      id,
      name: input.name ?? null,
      startMs: from.startMs,
      scenario: (from.scenario ?? null) as Row["scenario"],
      ttlMs,
      createdReal: now,
      lastUsedReal: now,
      clockMs: start,
      clockReal: now,
      wakeReal: 0,
    };
    this.madeHere.add(row);
    this.creating++;
    let comp: Composition;
    try {
      let image = from.image;
      if (from.copied) {
        // a copy's reset goes back to its image: kept in memory, or written beside its database
        if (this.folder === undefined) this.origins.set(id, from.image);
        else {
          await writeCopy(this.pathOf(id), from.image);
          image = this.image();
        }
      }
      comp = await this.options.open({ ...this.spec(row, image, !from.copied), copiedAt: from.copied?.nowMs });
    } catch (err) {
      this.origins.delete(id);
      removeFiles(this.pathOf(id));
      throw err;
    } finally {
      this.creating--;
    }
    if (this.stopped) {
      void this.discard(comp, id);
      throw badRequest("The server is stopping");
    }
    let merchants: ReadonlyArray<SandboxMerchant> = [];
    try {
      if (input.scenario !== undefined) {
        const loaded = comp.loadScenario(input.scenario);
        merchants = loaded.merchants;
        row.scenario = loaded.stored as Row["scenario"];
      } else if (from.copied && isScenario(row.scenario)) {
        merchants = row.scenario.merchants;
      }
      this.store.insert(row);
    } catch (err) {
      // nothing left behind: its database goes with it
      this.origins.delete(id);
      void this.discard(comp, id);
      throw err;
    }
    // its time starts now that it is ready: the 201 says `now` = startTime (or its source's now)
    comp.startClockAt(start);
    row.clockReal = this.options.wallNow();
    this.rows.set(id, row);
    this.opened.set(id, { comp, active: 0, lastReal: now });
    const first = merchants[0];
    return { ...this.summary(row), merchant: pickMerchant(first ?? BUILTIN_MERCHANT) };
  }

  private rowOf(id: string): Row {
    const row = this.rows.get(id);
    if (!row) throw sandboxNotFound(id);
    return row;
  }

  private summary(row: Row): SandboxSummary {
    const entry = this.opened.get(row.id);
    const now = entry && !entry.closing ? entry.comp.nowMs() : this.anchorNow(row);
    return {
      id: row.id,
      name: row.name,
      baseUrl: `${this.options.publicUrl()}${basePathOf(row.id)}`,
      now: toIso(Math.min(now, MAX_CLOCK_MS)),
      createdAt: toIso(row.createdReal),
      lastUsedAt: toIso(row.lastUsedReal),
      expiresAt: toIso(row.lastUsedReal + row.ttlMs),
    };
  }

  private anchorNow(row: Row): number {
    return anchorNow(row, this.options.scale, this.options.wallNow());
  }

  private pathOf(id: string): string {
    return databasePath(this.folder, id);
  }

  private image(): Buffer {
    this.imageCache ??= this.options.image();
    return this.imageCache;
  }

  private spec(row: Row, image: Buffer | undefined, fresh = false): OpenSpec {
    return {
      id: row.id,
      path: this.pathOf(row.id),
      image,
      anchorNowMs: this.anchorNow(row),
      current: this.madeHere.has(row),
      fresh,
      startMs: row.startMs,
      scenario: row.scenario ?? undefined,
      origin: this.origins.get(row.id),
      copiedAt: undefined,
      baseUrl: `${this.options.publicUrl()}${basePathOf(row.id)}`,
      basePath: basePathOf(row.id),
    };
  }

  /** Opens a closed sandbox; concurrent callers share the one open. */
  private openRow(row: Row): Promise<OpenEntry> {
    let opening = this.opening.get(row.id);
    if (!opening) {
      opening = this.openNow(row).finally(() => this.opening.delete(row.id));
      this.opening.set(row.id, opening);
    }
    return opening;
  }

  private async openNow(row: Row): Promise<OpenEntry> {
    const image = this.folder === undefined ? this.images.get(row.id) : this.image();
    let comp: Composition;
    try {
      comp = await this.options.open(this.spec(row, image));
    } catch (err) {
      if (this.rows.get(row.id) === row) throw err;
      // deleted while its file was prepared: its files went from under the open
      removeFiles(this.pathOf(row.id));
      throw sandboxNotFound(row.id);
    }
    if (this.rows.get(row.id) !== row || this.stopped) {
      // deleted (or the server stopping) while its file was prepared
      void this.discard(comp, row.id);
      throw sandboxNotFound(row.id);
    }
    this.images.delete(row.id);
    const entry: OpenEntry = { comp, active: 0, lastReal: this.options.wallNow() };
    this.opened.set(row.id, entry);
    this.store.markOpen(row);
    return entry;
  }

  private closeOne(id: string, graceMs = 0, deletion?: { settleDue: boolean }): Promise<void> {
    const entry = this.opened.get(id);
    if (!entry) return Promise.resolve();
    entry.closing ??= (async () => {
      try {
        const closed = await entry.comp.close(graceMs, deletion);
        const row = this.rows.get(id);
        if (row) {
          if (closed.image) this.images.set(id, closed.image);
          row.clockMs = closed.nowMs;
          row.clockReal = this.options.wallNow();
          row.wakeReal = wakeOf(closed.nextDueAt, row, this.options.scale);
          this.store.saveAnchor(row);
        } else {
          // deleted: its files are removed next, once the thread has closed them
          await closed.released;
        }
      } catch (err) {
        this.options.logger.error({ err, sandbox: id }, "closing a sandbox failed");
      } finally {
        this.opened.delete(id);
      }
    })();
    return entry.closing;
  }

  /** Deletes it (expired, or DELETE): by default its webhooks on the wire are cut off. */
  private async remove(id: string, deletion = { settleDue: false }): Promise<void> {
    const row = this.rows.get(id);
    if (!row) return;
    this.rows.delete(id);
    this.dirty.delete(id);
    this.images.delete(id);
    this.origins.delete(id);
    this.store.delete(id);
    const entry = this.opened.get(id);
    if (entry) {
      // its requests under way answer first (a bounded wait), then its webhooks settle or are cut off
      if (entry.active > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 5_000);
          entry.drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      await this.closeOne(id, 0, deletion);
    }
    removeFiles(this.pathOf(id));
  }

  /** Closes a composition nobody will use and removes its files once the thread has let them go. */
  private async discard(comp: Composition, id: string): Promise<void> {
    try {
      const closed = await comp.close(0);
      await closed.released;
    } catch (err) {
      this.options.logger.error({ err, sandbox: id }, "closing a sandbox failed");
    }
    removeFiles(this.pathOf(id));
  }

  /** Last use and the heartbeat (how far the clocks ran before a crash) go to the root's database. */
  private flush(now: number): void {
    const rows = [...this.dirty].map((id) => this.rows.get(id)).filter((r): r is Row => r !== undefined);
    this.dirty.clear();
    this.store.flush(rows, now);
  }
}

function isScenario(s: unknown): s is { merchants: SandboxMerchant[] } {
  return typeof s === "object" && s !== null && Array.isArray((s as { merchants?: unknown }).merchants);
}

function pickMerchant(m: SandboxMerchant): SandboxMerchant {
  return {
    merchantKey: m.merchantKey,
    merchantSecret: m.merchantSecret,
    mid: m.mid,
    merchantId: m.merchantId,
    accountId: m.accountId,
  };
}
