/**
 * The delivery pipeline's view of group commit (src/db/commit.ts, docs/performance.md): the few
 * points where sending a webhook meets the batch a request's writes commit in. What is sent is
 * always committed first (`commitBeforeSending`); a delivery written inside an open batch can ride
 * on its COMMIT (`isOpen`, `beforeCommit`); background writes wait while the WAL restarts
 * (`writesPaused`, src/db/checkpointer.ts).
 */
import type Database from "better-sqlite3";
import { writesPaused } from "../db/checkpointer.js";
import { atCommit, batchOpen, type CommitHook, commitNow, rollbacks } from "../db/commit.js";

export class DeliveryCommits {
  constructor(private readonly sqlite: Database.Database) {}

  /** A group-commit batch is open now: what is registered with `beforeCommit` now runs in it. */
  isOpen(): boolean {
    return batchOpen(this.sqlite);
  }

  /**
   * Runs `hook` (once per `key`) inside the open batch just before its COMMIT, and what it returns
   * after; `abandoned` instead when SQLite rolled the batch back first. False when no batch is open.
   */
  beforeCommit(key: object, hook: CommitHook, abandoned?: () => void): boolean {
    return atCommit(this.sqlite, key, hook, abandoned);
  }

  /** Commits the open batch, if any: a claimed attempt leaves the process only once its claim is on disk. */
  commitBeforeSending(): void {
    commitNow(this.sqlite);
  }

  /**
   * Savepoints undone on the connection so far: unchanged between a write and the COMMIT means
   * that write is still there, without reading it back.
   */
  undone(): number {
    return rollbacks(this.sqlite);
  }

  /** While the WAL restarts, a promise that background writes (recording results) wait for. */
  writesPaused(): Promise<void> | undefined {
    return writesPaused(this.sqlite);
  }

  /** The database is still open (a result that arrives after it closed cannot be written). */
  get dbOpen(): boolean {
    return this.sqlite.open;
  }
}
