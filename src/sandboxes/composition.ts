/**
 * What the registry and the composition root agree on (docs/architecture.md "How a sandbox is
 * composed"): src/compose.ts hands the registry one `SandboxBuilder`, which composes a sandbox's
 * service graph over a database the registry opened (storage.ts), and offers the root as a source of
 * forks. The registry never sees a service; the builder never sees the registry.
 */
import type { Db } from "../db/client.js";
import type { SandboxMerchant } from "../platform/fixtures.js";

export type { SandboxMerchant };

/** One sandbox's service graph, as the registry drives it (src/compose.ts builds it from an AppContext). */
export interface Composition {
  fetch(req: Request, env: unknown): Response | Promise<Response>;
  /** Its virtual now. */
  nowMs(): number;
  /** When the work a copy of it now would have falls due (virtual ms; its webhooks not: a copy skips them), or undefined. */
  copyDueAt(): number | undefined;
  /**
   * Loads a scenario document (JSON value or YAML text); a 400 naming the path when invalid. Returns
   * its merchants and the document as stored (parsed, without `steps`), which its reset reloads.
   */
  loadScenario(document: unknown): { merchants: ReadonlyArray<SandboxMerchant>; stored: unknown };
  /** Starts what is due now and returns (the once-a-second tick). */
  runDue(): Promise<unknown>;
  /** Webhook requests on the wire or waiting for room: not closed under them. */
  busy(): boolean;
  /** Puts its clock at `ms` now (a new sandbox's clock starts when it is ready, not before it was opened). */
  startClockAt(ms: number): void;
  /**
   * Finishes what runs (webhooks get `graceMs`, then are recorded as interrupted), saves its clock
   * and commits; its database stays open for the registry to close (storage.ts). Answers where its
   * clock and its next work were. With `deletion` it is closed for good: `settleDue` first sends the
   * webhooks due and waits for their answers (bounded by the attempt timeout), and attempts cut off
   * are the last (docs/parallel-suites.md#deleting-a-sandbox).
   */
  close(graceMs: number, deletion?: { settleDue: boolean }): Promise<{ nowMs: number; nextDueAt: number | undefined }>;
}

/** How its database came to be, which says what its composition reads again. */
export type Made =
  /** a create: the fresh image as it is (nothing to recover, no clock saved, the built-in merchant in it) */
  | "new"
  /** a fork, just settled (adoptCopy): its clock is where the copy was made, nothing in flight */
  | "fork"
  /** a loaded snapshot, just settled: as a fork, but the built-in merchant is seeded (an older file's may differ) */
  | "load"
  /** a closed one opened again: its clock and what was in flight are read back */
  | "reopen";

/** What a composition is built from, besides its database. */
export interface ComposeSpec {
  id: string;
  made: Made;
  /** Its database file, or `:memory:` (a report reads a file with a connection of its own). */
  path: string;
  /** Virtual ms its clock is at now by the registry's anchor (its own saved clock may be later). */
  anchorNowMs: number;
  startMs: number;
  /** Its creation scenario, reloaded by its reset. */
  scenario: unknown;
  /** The image it was copied from, which `reset {"snapshot": true}` goes back to; undefined when it is no copy. */
  origin: () => Buffer | undefined;
  basePath: string;
}

/** A sandbox (or the root) as a fork's source: its database and its clock now. */
export interface ForkSource {
  db: Db;
  /** Its file, or `:memory:`. */
  path: string;
  nowMs(): number;
  /** When the work a copy of it now would have falls due (virtual ms; its webhooks not: a copy skips them), or undefined. */
  copyDueAt(): number | undefined;
  /** Where its reset puts its clock (virtual ms; undefined: its now, as the root's) and the scenario it reloads, which a copy takes on. */
  startMs: number | undefined;
  scenario: unknown;
}

/** What src/compose.ts hands the registry: the one way a sandbox's services are built, and the root. */
export interface SandboxBuilder {
  compose(spec: ComposeSpec, db: Db): Composition;
  /** The root sandbox as a source of forks (`"from": "root"`). */
  root(): ForkSource;
  /** A new sandbox's database image: migrated, the built-in merchant seeded, no instance secret. */
  freshImage(): Buffer;
}
