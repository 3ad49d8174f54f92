/**
 * What the registry and the composition root agree on (docs/parallel-suites.md): a composition is
 * one sandbox's service graph as the registry drives it, and an open spec says what to build one
 * from. src/compose.ts builds both sides' halves; the registry never sees a service.
 */
import type { State } from "../snapshots/images.js";

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
  /** A copy's first open: settle what must not carry over from its source, its clock at this now (docs/snapshots.md). */
  copiedAt: number | undefined;
  baseUrl: string;
  basePath: string;
}
