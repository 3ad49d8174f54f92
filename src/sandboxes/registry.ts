/**
 * Many isolated sandboxes in one server (docs/parallel-suites.md).
 * A sandbox is one composition of the whole service graph over its own SQLite database and its own
 * clock, built by the same composition root as the root sandbox (src/compose.ts hands this registry
 * the builder). Isolation holds by construction: no query has a sandbox filter, because no
 * composition can reach another's database, and a token signed by one sandbox's secret fails in
 * every other.
 *
 * The registry creates, opens (on first use), closes (when idle, least recently used first) and
 * deletes compositions; it owns the TTL (real time, renewed by every request) and the limit. An idle
 * sandbox costs a closed file and a row: its clock keeps running from an anchor in that row, and a
 * closed sandbox whose work falls due (a webhook retry, a 3DS timeout, a charge) is opened to run it.
 * With `:memory:` a closed sandbox is its serialized image in memory.
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
import { rmSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { eq } from "drizzle-orm";
import { MAX_CLOCK_ISO, MAX_CLOCK_MS } from "../control/control.service.js";
import { type Db, inTransaction, walImage } from "../db/client.js";
import { sandboxes, sandboxState } from "../db/schema/index.js";
import type { Logger } from "../logger.js";
import { BUILTIN_MERCHANT } from "../modules/merchants/merchants.service.js";
import { INSTANT_REASON, parseInstant, toIso } from "../platform/clock.js";
import { addDuration, durationReason, parseDuration } from "../platform/duration.js";
import { badRequest, invalidField, notFound, tooMany } from "../platform/errors.js";
import { type Ids, timeOrderedIds } from "../platform/ids.js";
import { copyImage, loadSnapshot, type State } from "../snapshots/images.js";
import type { SnapshotMeta } from "../snapshots/snapshot-file.js";

export const DEFAULT_TTL = "PT1H";
export const MIN_TTL_MS = 1_000;
export const MAX_TTL_MS = 7 * 86_400_000;
/** `sbx_` + 20 base-62 characters (platform/ids.ts). */
export const SANDBOX_ID = /^sbx_[0-9A-Za-z]{20}$/;
const HEARTBEAT_KEY = "sandboxes_heartbeat_real";

/** What a composition must offer the registry (src/compose.ts builds it from an AppContext). */
export interface Composition {
  fetch(req: Request, env: unknown): Response | Promise<Response>;
  /** Its virtual now. */
  nowMs(): number;
  /**
   * Loads a scenario document (JSON value or YAML text); a 400 naming the path when invalid. Returns
   * its merchants and the document as stored (parsed, without `steps`), which its reset reloads.
   */
  loadScenario(document: unknown): { merchants: ReadonlyArray<SandboxMerchant>; stored: unknown };
  /** Starts what is due now and returns (the once-a-second tick). */
  runDue(): Promise<unknown>;
  /** The earliest virtual ms it has work at, or undefined. */
  nextDueAt(): number | undefined;
  /** Webhook requests on the wire or waiting for room: not closed under them. */
  busy(): boolean;
  /** Its state now, everything it acknowledged included (docs/snapshots.md). */
  state(): State;
  /** Persists its clock in its own database. */
  saveClock(): void;
  /** Puts its clock at `ms` now (a new sandbox's clock starts when it is ready, not before it was opened). */
  startClockAt(ms: number): void;
  /**
   * Finishes what runs (webhooks get `graceMs`, then are recorded as interrupted), saves its clock
   * and closes its database. Answers where its clock and its next work were, and for `:memory:` its
   * image, to be opened from later. With `deletion` it is closed for good: `settleDue` first sends
   * the webhooks due and waits for their answers (bounded by the attempt timeout), and attempts cut
   * off are the last (docs/parallel-suites.md#deleting-a-sandbox).
   */
  close(
    graceMs: number,
    deletion?: { settleDue: boolean },
  ): Promise<{
    nowMs: number;
    nextDueAt: number | undefined;
    image: Buffer | undefined;
    /** Settles when the file is wholly let go (the checkpointer thread closes it after this connection). */
    released: Promise<void>;
  }>;
}

export interface SandboxMerchant {
  merchantKey: string;
  merchantSecret: string;
  mid: string;
  merchantId: number;
  accountId: number;
}

export interface OpenSpec {
  id: string;
  /** The database file, or `:memory:`. */
  path: string;
  /** The image to open from when the file does not exist yet (or the `:memory:` image). */
  image: Buffer | undefined;
  /** Virtual ms its clock is at now by the registry's anchor (its own saved clock may be later). */
  anchorNowMs: number;
  startMs: number;
  /** Its file was written from this build's image by this process: it has every migration. */
  current: boolean;
  /** A create: its database is the image as it is (nothing to recover, no clock saved). */
  fresh: boolean;
  /** Its creation scenario, reloaded by its reset. */
  scenario: unknown;
  /**
   * The image it was copied from (a fork or a loaded snapshot), which `reset {"snapshot": true}` goes
   * back to: in memory with `:memory:`; a file-backed one's is the file `originPath(path)`.
   */
  origin: Buffer | undefined;
  baseUrl: string;
  basePath: string;
}

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

/** What a new sandbox opens from (docs/snapshots.md): an image, and where its clock and its reset are. */
interface Source {
  image: Buffer;
  /** A copy's state (fork or snapshot): its clock is at this now, and its reset can go back to `image`. */
  copied?: { nowMs: number } | undefined;
  startMs: number;
  scenario: unknown;
}

type Row = typeof sandboxes.$inferSelect;

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
  private readonly memory: boolean;
  private readonly folder: string;
  private readonly maxOpen: number;
  private readonly idleMs: number;
  private imageCache: Buffer | undefined;
  private stopped = false;

  constructor(private readonly o: RegistryOptions) {
    this.ids = timeOrderedIds({ nowMs: o.wallNow });
    this.memory = o.dbPath === ":memory:";
    this.folder = `${o.dbPath}-sandboxes`;
    this.maxOpen = Math.max(1, o.maxOpen ?? 64);
    this.idleMs = o.idleMs ?? 30_000;
    this.recoverRows();
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
  async create(input: CreateInput): Promise<SandboxSummary & { merchant: SandboxMerchant }> {
    if (input.from !== undefined) return this.fork(input);
    this.checkInput(input);
    let startMs: number | undefined;
    if (input.startTime !== undefined) {
      startMs = parseInstant(input.startTime);
      if (startMs === undefined) throw invalidField("startTime", INSTANT_REASON);
      if (startMs > MAX_CLOCK_MS || startMs < 0) {
        throw invalidField("startTime", `must be from 1970-01-01T00:00:00Z to ${MAX_CLOCK_ISO}, e.g. "2026-01-15T12:00:00Z"`);
      }
    }
    const start = startMs ?? this.o.rootNow();
    return this.openFrom(input, { image: this.image(), startMs: start, scenario: null });
  }

  /** A copy of `from` (`root` or a running sandbox's id) as it is at this instant (docs/snapshots.md). */
  private async fork(input: CreateInput): Promise<SandboxSummary & { merchant: SandboxMerchant }> {
    if (input.startTime !== undefined) throw invalidField("startTime", "not with from: a copy's clock is at its source's now");
    if (input.scenario !== undefined) throw invalidField("scenario", "not with from: a copy has its source's scenarios");
    this.checkInput(input);
    const from = input.from as string;
    let state: State;
    let meta: { startMs: number; scenario: unknown };
    if (from === "root") {
      ({ state, meta } = this.o.rootState());
    } else {
      const row = this.rows.get(from);
      if (!row || this.stopped) throw notFound(`Invalid field: from (sandbox not found: ${shorten(from)})`);
      let entry = this.opened.get(from);
      if (entry?.closing) {
        await entry.closing;
        entry = this.opened.get(from);
      }
      entry ??= await this.openRow(row);
      state = entry.comp.state();
      meta = { startMs: row.startMs, scenario: row.scenario };
    }
    return this.openFrom(input, { image: copyImage(state), copied: { nowMs: state.nowMs }, ...meta });
  }

  /** POST /_sandbox/sandboxes with a snapshot file: a new sandbox started from it (docs/snapshots.md). */
  async load(bytes: Buffer, input: Pick<CreateInput, "name" | "ttl">): Promise<SandboxSummary & { merchant: SandboxMerchant }> {
    this.checkInput(input);
    const { state, meta } = loadSnapshot(bytes);
    const startMs = Number.isFinite(meta.startMs) ? meta.startMs : state.nowMs;
    return this.openFrom(input, {
      image: copyImage(state),
      copied: { nowMs: state.nowMs },
      startMs,
      scenario: meta.scenario ?? null,
    });
  }

  /** What every create checks before it does anything. */
  private checkInput(input: Pick<CreateInput, "name" | "ttl">): void {
    if (this.stopped) throw badRequest("The server is stopping");
    this.ttlOf(input.ttl);
    if (input.name !== undefined && input.name.length > 200) throw invalidField("name", "at most 200 characters");
    if (this.rows.size + this.creating >= this.o.maxSandboxes) throw tooMany(`Too many sandboxes (limit ${this.o.maxSandboxes})`);
  }

  /**
   * The one way a sandbox comes to be: opened from a database image (a fresh one's is the empty,
   * migrated image; a fork's and a loaded snapshot's are copies), its clock at its start or at its
   * source's now, its scenario loaded.
   */
  private async openFrom(input: CreateInput, from: Source): Promise<SandboxSummary & { merchant: SandboxMerchant }> {
    this.checkInput(input);
    const ttlMs = this.ttlOf(input.ttl);
    const now = this.o.wallNow();
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
        if (this.memory) this.origins.set(id, from.image);
        else {
          // its database and the image its reset goes back to, written off the event loop
          const path = this.pathOf(id);
          await mkdirOf(path);
          await Promise.all([writeFile(path, walImage(Buffer.from(from.image))), writeFile(originPath(path), from.image)]);
          image = this.image();
        }
      }
      comp = await this.o.open({ ...this.spec(row, image, !from.copied), anchorNowMs: start });
    } catch (err) {
      this.origins.delete(id);
      this.removeFiles(id);
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
      inTransaction(this.o.rootDb, () => this.o.rootDb.insert(sandboxes).values(row).run());
    } catch (err) {
      // nothing left behind: its database goes with it
      this.origins.delete(id);
      void this.discard(comp, id);
      throw err;
    }
    // its time starts now that it is ready: the 201 says `now` = startTime (or its source's now)
    comp.startClockAt(start);
    row.clockReal = this.o.wallNow();
    this.rows.set(id, row);
    this.opened.set(id, { comp, active: 0, lastReal: now });
    const first = merchants[0];
    return { ...this.summary(row), merchant: pickMerchant(first ?? BUILTIN_MERCHANT) };
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
    const now = this.o.wallNow();
    if (now >= row.lastUsedReal + row.ttlMs) {
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
      entry.lastReal = this.o.wallNow();
      if (entry.active === 0) entry.drained?.();
    }
  }

  /**
   * Once a real second (main.ts's timer): deletes expired sandboxes, opens closed ones whose work
   * fell due, starts what is due in every open one, closes idle ones, and persists last use.
   */
  async tick(): Promise<void> {
    if (this.stopped) return;
    const now = this.o.wallNow();
    for (const row of [...this.rows.values()]) {
      if (now >= row.lastUsedReal + row.ttlMs) {
        this.o.logger.info({ sandbox: row.id }, `sandbox ${row.id} expired (unused for ${row.ttlMs / 1000} s)`);
        await this.remove(row.id);
      } else if (!this.opened.has(row.id) && row.wakeReal !== null && row.wakeReal <= now) {
        // its due work runs from the next tick on
        this.openRow(row).catch((err: unknown) => this.o.logger.error({ err, sandbox: row.id }, "opening a sandbox failed"));
      }
    }
    for (const [id, entry] of this.opened) {
      if (entry.closing) continue;
      entry.comp.runDue().catch((err: unknown) => this.o.logger.error({ err, sandbox: id }, "background work failed"));
    }
    for (const [id, entry] of [...this.opened]) {
      if (!entry.closing && entry.active === 0 && now - entry.lastReal >= this.idleMs && !entry.comp.busy()) {
        void this.closeOne(id);
      }
    }
    this.closeOverflow();
    // what this tick closes is closed when it returns (a closed sandbox's row holds its clock and wake
    // time); one being deleted (no row) is not waited for: its webhooks may take the attempt timeout
    await Promise.all([...this.opened].filter(([id]) => this.rows.has(id)).map(([, e]) => e.closing));
    this.flush(now);
  }

  /** Shutdown: every open sandbox finishes (webhooks get `graceMs`), saves its clock and closes. */
  async closeAll(graceMs: number): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.opened.keys()].map((id) => this.closeOne(id, graceMs)));
    this.flush(this.o.wallNow());
  }

  private ttlOf(ttl: string | undefined): number {
    const text = ttl ?? DEFAULT_TTL;
    const d = parseDuration(text);
    if (!d) throw invalidField("ttl", durationReason(text));
    const now = this.o.wallNow();
    const ms = addDuration(now, d) - now;
    if (!Number.isFinite(ms) || ms < MIN_TTL_MS || ms > MAX_TTL_MS) {
      throw badRequest(`Invalid field: ttl (between PT1S and P7D; got ${text.slice(0, 40)})`);
    }
    return ms;
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
      baseUrl: `${this.o.publicUrl()}${basePathOf(row.id)}`,
      now: toIso(Math.min(now, MAX_CLOCK_MS)),
      createdAt: toIso(row.createdReal),
      lastUsedAt: toIso(row.lastUsedReal),
      expiresAt: toIso(row.lastUsedReal + row.ttlMs),
    };
  }

  /** Where its clock is now by its anchor: it runs at the server's scale while closed. */
  private anchorNow(row: Row): number {
    return row.clockMs + Math.max(0, this.o.scale * (this.o.wallNow() - row.clockReal));
  }

  private pathOf(id: string): string {
    return this.memory ? ":memory:" : join(this.folder, `${id}.db`);
  }

  private image(): Buffer {
    this.imageCache ??= this.o.image();
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
      baseUrl: `${this.o.publicUrl()}${basePathOf(row.id)}`,
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
    const image = this.memory ? this.images.get(row.id) : this.image();
    let comp: Composition;
    try {
      comp = await this.o.open(this.spec(row, image));
    } catch (err) {
      if (this.rows.get(row.id) === row) throw err;
      // deleted while its file was prepared: its files went from under the open
      this.removeFiles(row.id);
      throw sandboxNotFound(row.id);
    }
    if (this.rows.get(row.id) !== row || this.stopped) {
      // deleted (or the server stopping) while its file was prepared
      void this.discard(comp, row.id);
      throw sandboxNotFound(row.id);
    }
    this.images.delete(row.id);
    const entry: OpenEntry = { comp, active: 0, lastReal: this.o.wallNow() };
    this.opened.set(row.id, entry);
    // open: if the process dies now, the next start opens it to recover what it had in flight
    if (row.wakeReal !== 0) {
      row.wakeReal = 0;
      this.o.rootDb.update(sandboxes).set({ wakeReal: 0 }).where(eq(sandboxes.id, row.id)).run();
    }
    return entry;
  }

  /**
   * Closes the least recently used compositions beyond `maxOpen` that are not serving a request: in
   * the tick, not on the request that opened one more, so a burst of creates pays no closing.
   */
  private closeOverflow(): void {
    let over = this.opened.size - this.maxOpen;
    for (const [id, entry] of this.opened) {
      if (over <= 0) break;
      if (entry.closing || entry.active > 0 || entry.comp.busy()) continue;
      void this.closeOne(id);
      over--;
    }
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
          row.clockReal = this.o.wallNow();
          row.wakeReal = this.wakeOf(closed.nextDueAt, row);
          this.o.rootDb
            .update(sandboxes)
            .set({ clockMs: row.clockMs, clockReal: row.clockReal, wakeReal: row.wakeReal, lastUsedReal: row.lastUsedReal })
            .where(eq(sandboxes.id, id))
            .run();
        } else {
          // deleted: its files are removed next, once the thread has closed them
          await closed.released;
        }
      } catch (err) {
        this.o.logger.error({ err, sandbox: id }, "closing a sandbox failed");
      } finally {
        this.opened.delete(id);
      }
    })();
    return entry.closing;
  }

  /** Real ms at which virtual `due` arrives for a closed sandbox anchored in `row`; null for none. */
  private wakeOf(due: number | undefined, row: Row): number | null {
    if (due === undefined) return null;
    if (due <= row.clockMs) return row.clockReal; // due already: open it at the next tick
    return row.clockReal + Math.ceil((due - row.clockMs) / this.o.scale);
  }

  /** Deletes it (expired, or DELETE): by default its webhooks on the wire are cut off. */
  private async remove(id: string, deletion = { settleDue: false }): Promise<void> {
    const row = this.rows.get(id);
    if (!row) return;
    this.rows.delete(id);
    this.dirty.delete(id);
    this.images.delete(id);
    this.origins.delete(id);
    this.o.rootDb.delete(sandboxes).where(eq(sandboxes.id, id)).run();
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
    this.removeFiles(id);
  }

  /** Closes a composition nobody will use and removes its files once the thread has let them go. */
  private async discard(comp: Composition, id: string): Promise<void> {
    try {
      const closed = await comp.close(0);
      await closed.released;
    } catch (err) {
      this.o.logger.error({ err, sandbox: id }, "closing a sandbox failed");
    }
    this.removeFiles(id);
  }

  private removeFiles(id: string): void {
    if (this.memory) return;
    const path = this.pathOf(id);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
    rmSync(originPath(path), { force: true });
  }

  /** Last use and the heartbeat (how far the clocks ran before a crash) go to the root's database. */
  private flush(now: number): void {
    const db = this.o.rootDb;
    if (!db.$client.open) return;
    inTransaction(db, () => {
      for (const id of this.dirty) {
        const row = this.rows.get(id);
        if (row) db.update(sandboxes).set({ lastUsedReal: row.lastUsedReal }).where(eq(sandboxes.id, id)).run();
      }
      this.dirty.clear();
      const value = String(now);
      db.insert(sandboxState)
        .values({ key: HEARTBEAT_KEY, value })
        .onConflictDoUpdate({ target: sandboxState.key, set: { value } })
        .run();
    });
  }

  /**
   * At start: the rows of the sandboxes that outlived the last run. Their clocks stopped when the
   * server did (the last heartbeat), as the root's does; one that was open then (a crash) or had work
   * due is opened by the first tick, to recover and run it.
   */
  private recoverRows(): void {
    const db = this.o.rootDb;
    const now = this.o.wallNow();
    const hb = db.select().from(sandboxState).where(eq(sandboxState.key, HEARTBEAT_KEY)).get();
    const stoppedAt = hb ? Number(hb.value) : undefined;
    const rows = db.select().from(sandboxes).all();
    inTransaction(db, () => {
      for (const row of rows) {
        const ranUntil = stoppedAt === undefined ? row.clockReal : Math.max(row.clockReal, stoppedAt);
        row.clockMs += Math.max(0, this.o.scale * (ranUntil - row.clockReal));
        row.clockReal = now;
        if (row.wakeReal !== null) row.wakeReal = now;
        // the downtime does not count against its TTL: nothing could use it then
        if (stoppedAt !== undefined) row.lastUsedReal += Math.max(0, now - stoppedAt);
        db.update(sandboxes)
          .set({ clockMs: row.clockMs, clockReal: row.clockReal, wakeReal: row.wakeReal, lastUsedReal: row.lastUsedReal })
          .where(eq(sandboxes.id, row.id))
          .run();
        this.rows.set(row.id, row);
      }
    });
  }
}

export const basePathOf = (id: string) => `/sandboxes/${id}`;

/** Where a file-backed copy keeps the image it was made from, beside its database. */
export const originPath = (path: string) => `${path}-origin`;

const mkdirOf = (path: string) => mkdir(dirname(path), { recursive: true });

function isScenario(s: unknown): s is { merchants: SandboxMerchant[] } {
  return typeof s === "object" && s !== null && Array.isArray((s as { merchants?: unknown }).merchants);
}

const shorten = (id: string) => (id.length > 64 ? `${id.slice(0, 64)}…` : id);

function pickMerchant(m: SandboxMerchant): SandboxMerchant {
  return {
    merchantKey: m.merchantKey,
    merchantSecret: m.merchantSecret,
    mid: m.mid,
    merchantId: m.merchantId,
    accountId: m.accountId,
  };
}

/** Unknown, deleted or malformed → 404 naming it (a long or odd id is cut, never echoed whole). */
export function sandboxNotFound(id: string) {
  const shown = id.length > 64 ? `${id.slice(0, 64)}…` : id;
  return notFound(`Sandbox not found: ${shown}`);
}
