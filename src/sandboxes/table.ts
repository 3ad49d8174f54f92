/**
 * The registry's state (docs/parallel-suites.md), shared by its jobs (making.ts, routing.ts, closing.ts,
 * ticking.ts): every sandbox's row, the open ones with their composition and database, the opens
 * under way, what the limit counts; and what each job reads of them (a summary, a row's clock now).
 */
import type { Db } from "../db/client.js";
import type { Logger } from "../logger.js";
import { MAX_CLOCK_MS, toIso } from "../platform/clock.js";
import type { Composition, SandboxBuilder } from "./composition.js";
import { anchorNow } from "./eviction.js";
import { basePathOf } from "./files.js";
import type { Row, RowStore } from "./rows.js";
import type { Opened, SandboxStorage, Storage } from "./storage.js";
import { sandboxNotFound } from "./validation.js";

export interface RegistryOptions {
  /** The root's database: the rows of file-backed sandboxes live there. */
  rootDb: Db;
  /** SANDBOX_DB: file-backed sandboxes go in the folder `<db>-sandboxes/`; `:memory:` keeps every one in memory. */
  dbPath: string;
  /** Where a sandbox lives when its create does not say (SANDBOX_STORAGE). */
  storage: Storage;
  maxSandboxes: number;
  /** Virtual seconds per real second (the server's). */
  scale: number;
  /** Real time, ms (tests move it by hand). */
  wallNow: () => number;
  /** The root's virtual now: where a sandbox without a startTime starts. */
  rootNow: () => number;
  /** The root's public URL (a sandbox's baseUrl is `<it>/sandboxes/<id>`). */
  publicUrl: () => string;
  /** Builds a sandbox's services over its database, and offers the root as a source (src/compose.ts). */
  builder: SandboxBuilder;
  /** One commit per turn in every sandbox's database, its WAL checkpointed in the background (the server). */
  groupCommit: boolean;
  logger: Logger;
  /** Compositions kept open at most (least recently used closed first). */
  maxOpen?: number;
  /** Real ms without a request after which an open sandbox with nothing in flight is closed. */
  idleMs?: number;
  /** Bytes of loaded snapshot files (and migrated images) kept for their next load (src/snapshots/kept-snapshots.ts). */
  keepSnapshotBytes?: number | undefined;
}

export interface SandboxSummary {
  id: string;
  name: string | null;
  baseUrl: string;
  now: string;
  createdAt: string;
  lastUsedAt: string;
  expiresAt: string;
  /** Where its database lives: `memory` is gone when the server stops (docs/parallel-suites.md#storage). */
  storage: Storage;
}

/** A sandbox of the registry: its row (a file-backed one's is also in the root's database) and where it lives. */
export type Kept = Row & { storage: Storage };

/** An open sandbox: its database, its composition, and what its requests are doing. */
export interface OpenEntry {
  comp: Composition;
  opened: Opened;
  /** Requests under its base URL now. */
  active: number;
  /** Called when `active` drops to 0 (a delete waiting for the requests under way). */
  drained?: (() => void) | undefined;
  lastReal: number;
  closing?: Promise<void>;
}

export class Table {
  readonly rows = new Map<string, Kept>();
  /** Open compositions, least recently used first. */
  readonly opened = new Map<string, OpenEntry>();
  /** Opens under way (a closed sandbox's first requests share one). */
  readonly opening = new Map<string, Promise<OpenEntry>>();
  /** Rows whose files this process wrote from its image (no migrations to check when opened again). */
  readonly madeHere = new WeakSet<Row>();
  /** Rows whose last use is to be saved by the next tick. */
  readonly dirty = new Set<string>();
  /** Creates under way: they count against the limit. */
  creating = 0;
  stopped = false;
  readonly maxOpen: number;
  readonly idleMs: number;

  constructor(
    readonly o: RegistryOptions,
    readonly store: RowStore,
    readonly storage: SandboxStorage,
  ) {
    this.maxOpen = Math.max(1, o.maxOpen ?? 64);
    this.idleMs = o.idleMs ?? 30_000;
  }

  rowOf(id: string): Kept {
    const row = this.rows.get(id);
    if (!row) throw sandboxNotFound(id);
    return row;
  }

  /** Where its clock is now by its anchor: it runs at the server's scale while closed. */
  anchorNow(row: Row): number {
    return anchorNow(row, this.o.scale, this.o.wallNow());
  }

  summary(row: Kept): SandboxSummary {
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
      storage: row.storage,
    };
  }
}
