/**
 * How a sandbox comes to be (docs/parallel-suites.md, docs/snapshots.md): a create, a fork or a load,
 * each one straight path down: what the call asks is checked; its source is an image (the fresh
 * one, its source's now, or a snapshot's, checked by the image thread); storage.ts opens a database
 * from it (a file or memory); a copy settles what must not carry over (adoptCopy); the builder
 * composes its services; its row joins the registry. Bad input is a 400 naming the field and leaves
 * nothing behind; an unknown `from` a 404; one over the limit a 429.
 */

import { badRequest, invalidField, tooMany } from "../platform/errors.js";
import { BUILTIN_MERCHANT } from "../platform/fixtures.js";
import { type Ids, timeOrderedIds } from "../platform/ids.js";
import { type KeptSnapshot, KeptSnapshots } from "../snapshots/kept-snapshots.js";
import { type Image, imageOf } from "../snapshots/source-images.js";
import type { Closing } from "./closing.js";
import type { Composition, ForkSource, Made, SandboxMerchant } from "./composition.js";
import { wakeOf } from "./eviction.js";
import { basePathOf } from "./files.js";
import type { Routing } from "./routing.js";
import type { Opened, Storage } from "./storage.js";
import type { Kept, SandboxSummary, Table } from "./table.js";
import { checkFork, checkName, fromNotFound, startOf, ttlOf } from "./validation.js";

export interface CreateInput {
  name?: string | undefined;
  startTime?: string | undefined;
  scenario?: unknown;
  ttl?: string | undefined;
  /** A fork: `root` or a sandbox id whose state the new one starts from (docs/snapshots.md). */
  from?: string | undefined;
  /** Where it lives (docs/parallel-suites.md#storage); the server's SANDBOX_STORAGE when absent. */
  storage?: "file" | "memory" | undefined;
}

export type Created = SandboxSummary & { merchant: SandboxMerchant };

/** What a new sandbox starts from. */
interface Start {
  made: Exclude<Made, "reopen">;
  /**
   * A copy's image and the source it came from (a sandbox id or `root`; for a load, its kept file's
   * `snapshot:<checksum>`, none when not kept), and when the work it copies falls due (virtual ms;
   * undefined: none, or not known yet for a load).
   */
  copy?: { image: Image; source?: string | undefined; nowMs: number; dueAt?: number | undefined } | undefined;
  /** A load's file: what is known of it (its due time, learnt at the first open of a sandbox of it). */
  snapshot?: KeptSnapshot | undefined;
  startMs: number;
  scenario: unknown;
}

/** A kept snapshot file's key among the sources whose image file copies are made from (storage.ts). */
const snapshotSource = (checksum: string) => `snapshot:${checksum}`;

export class Making {
  private readonly ids: Ids;
  /** Snapshot files loaded before: a load of one again costs what a fork costs. */
  private readonly snapshots: KeptSnapshots;

  constructor(
    private readonly t: Table,
    private readonly routing: Routing,
    private readonly closing: Closing,
  ) {
    this.ids = timeOrderedIds({ nowMs: t.o.wallNow });
    this.snapshots = new KeptSnapshots(t.o.keepSnapshotBytes, (checksum) => t.storage.forgetSource(snapshotSource(checksum)));
  }

  /** POST /_sandbox/sandboxes: a fresh sandbox; with `from`, a copy of that one (or the root) as it is now. */
  async create(input: CreateInput): Promise<Created> {
    if (input.from !== undefined) return this.fork(input, input.from);
    this.checkCall(input);
    const startMs = startOf(input.startTime) ?? this.t.o.rootNow();
    return this.make(input, { made: "new", startMs, scenario: null });
  }

  /**
   * POST /_sandbox/sandboxes with a snapshot file: a new sandbox started from it. A file loaded
   * before (the same checksum, its bytes verified) is made from its kept image, as a fork is
   * (docs/snapshots.md#loading-a-file-again).
   */
  async load(bytes: Buffer, input: Pick<CreateInput, "name" | "ttl" | "storage">): Promise<Created> {
    this.check(input);
    const snapshot = await this.snapshots.load(bytes);
    const { image, nowMs, meta, checksum } = snapshot;
    const startMs = Number.isFinite(meta.startMs) ? meta.startMs : nowMs;
    const source = this.snapshots.has(checksum) ? snapshotSource(checksum) : undefined;
    return this.make(input, {
      made: "load",
      copy: { image, source, nowMs, dueAt: snapshot.due?.at },
      snapshot,
      startMs,
      scenario: meta.scenario ?? null,
    });
  }

  /** A copy of `from` (`root` or a sandbox's id) as it is at this instant (docs/snapshots.md). */
  private async fork(input: CreateInput, from: string): Promise<Created> {
    checkFork(input);
    this.check(input);
    const source = await this.source(from);
    const image = await imageOf(source.db, source.path);
    // read after the image: it holds nothing later than this now
    const nowMs = source.nowMs();
    return this.make(input, {
      made: "fork",
      copy: { image, source: from, nowMs, dueAt: source.copyDueAt() },
      startMs: source.startMs ?? nowMs,
      scenario: source.scenario,
    });
  }

  /** The root, or an open sandbox (opened first when closed). */
  private async source(from: string): Promise<ForkSource> {
    if (from === "root") return this.t.o.builder.root();
    const row = this.t.rows.get(from);
    if (!row || this.t.stopped) throw fromNotFound(from);
    let entry = this.t.opened.get(from);
    if (entry?.closing) {
      await entry.closing;
      entry = this.t.opened.get(from);
    }
    entry ??= await this.routing.open(row);
    const { comp, opened } = entry;
    return {
      db: opened.db,
      path: opened.path,
      nowMs: () => comp.nowMs(),
      copyDueAt: () => comp.copyDueAt(),
      startMs: row.startMs,
      scenario: row.scenario,
    };
  }

  /** What every create checks before it does anything (a fresh create checks its startTime, then its name). */
  private check(input: Pick<CreateInput, "name" | "ttl" | "storage">): void {
    this.checkCall(input);
    this.checkLimit(input);
  }

  private checkCall(input: Pick<CreateInput, "ttl" | "storage">): void {
    if (this.t.stopped) throw badRequest("The server is stopping");
    ttlOf(input.ttl, this.t.o.wallNow());
    this.storageOf(input);
  }

  private checkLimit(input: Pick<CreateInput, "name">): void {
    checkName(input.name);
    const { maxSandboxes } = this.t.o;
    if (this.t.rows.size + this.t.creating >= maxSandboxes) throw tooMany(`Too many sandboxes (limit ${maxSandboxes})`);
  }

  private storageOf(input: Pick<CreateInput, "storage">): Storage {
    const storage = input.storage ?? this.t.o.storage;
    if (storage === "file" && this.t.o.dbPath === ":memory:") {
      throw invalidField("storage", "file needs the server on a database file (SANDBOX_DB); this one runs on :memory:");
    }
    return storage;
  }

  /**
   * The one way a sandbox comes to be: its database made from its start's image (storage.ts), its
   * clock at its start (or its source's now), its row kept. It is opened by its first request
   * (routing.ts), as a closed one is, or by its first due work: a create costs the event loop no
   * database and no services (docs/performance.md "Sandboxes at once"). A create with a scenario
   * and the first load of a file are opened at once: the scenario's merchants are its answer, and
   * a snapshot's work due is not known before its database is (then it is kept with the file).
   */
  private async make(input: CreateInput, from: Start): Promise<Created> {
    this.checkLimit(input);
    const t = this.t;
    const now = t.o.wallNow();
    const ttlMs = ttlOf(input.ttl, now);
    const storage = this.storageOf(input);
    const id = this.ids.next("sandbox");
    const start = from.copy ? from.copy.nowMs : from.startMs;
    const row: Kept = {
      id,
      name: input.name ?? null,
      startMs: from.startMs,
      scenario: (from.scenario ?? null) as Kept["scenario"],
      ttlMs,
      createdReal: now,
      lastUsedReal: now,
      clockMs: start,
      clockReal: now,
      wakeReal: null,
      storage,
    };
    t.madeHere.add(row);
    const opensNow = input.scenario !== undefined || (from.snapshot !== undefined && from.snapshot.due === undefined);
    t.creating++;
    let made: { comp: Composition; opened: Opened } | undefined;
    try {
      await t.storage.make(id, storage, from.copy && { ...from.copy, made: from.made === "load" ? "load" : "fork" });
      if (opensNow) made = await this.openNew(row, start);
      // the work it holds, as every sandbox of this file will (read before anything runs in it)
      if (made && from.snapshot) from.snapshot.due ??= { at: made.comp.copyDueAt() };
    } finally {
      t.creating--;
    }
    if (t.stopped) {
      if (made) void this.closing.discard(id, made.comp, made.opened);
      else void t.storage.remove(id, storage);
      throw badRequest("The server is stopping");
    }
    let merchants: ReadonlyArray<SandboxMerchant> = [];
    try {
      if (made && input.scenario !== undefined) {
        const loaded = made.comp.loadScenario(input.scenario);
        merchants = loaded.merchants;
        row.scenario = loaded.stored as Kept["scenario"];
      } else if (from.copy && isScenario(row.scenario)) {
        merchants = row.scenario.merchants;
      }
      if (made) {
        // its time starts now that it is ready: the 201 says `now` = startTime (or its source's now)
        made.comp.startClockAt(start);
        row.wakeReal = 0;
      }
      row.clockReal = t.o.wallNow();
      // closed until its first request, or until the work it copied falls due
      if (!made) row.wakeReal = wakeOf(from.copy?.dueAt, row, t.o.scale);
      t.store.insert(row);
    } catch (err) {
      // nothing left behind: its database goes with it
      if (made) void this.closing.discard(id, made.comp, made.opened);
      else void t.storage.remove(id, storage);
      throw err;
    }
    t.rows.set(id, row);
    if (made) t.opened.set(id, { comp: made.comp, opened: made.opened, active: 0, lastReal: now });
    return { ...t.summary(row), merchant: pickMerchant(merchants[0] ?? BUILTIN_MERCHANT) };
  }

  /** A new sandbox opened at once (a create with a scenario, a load): its database, its services. */
  private async openNew(row: Kept, start: number): Promise<{ comp: Composition; opened: Opened }> {
    const t = this.t;
    const id = row.id;
    let got: Awaited<ReturnType<typeof t.storage.open>>;
    try {
      got = await t.storage.open(id, row.storage, true);
    } catch (err) {
      await t.storage.remove(id, row.storage);
      throw err;
    }
    const { opened, made } = got;
    try {
      const comp = t.o.builder.compose(
        {
          id,
          made,
          path: opened.path,
          anchorNowMs: start,
          startMs: row.startMs,
          scenario: row.scenario ?? undefined,
          origin: () => t.storage.origin(id, row.storage),
          basePath: basePathOf(id),
        },
        opened.db,
      );
      return { comp, opened };
    } catch (err) {
      const { released } = await t.storage.close(id, opened, true);
      await t.storage.remove(id, row.storage, released);
      throw err;
    }
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
