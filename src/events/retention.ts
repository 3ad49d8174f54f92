/**
 * Retention of the live events (docs/events.md): the newest `keep` events are kept; older ones are
 * deleted in the background, a chunk per turn of the event loop, once the log is over `keep` by a
 * small slack. `floor` is the newest id deleted: a listener behind it cannot resume.
 */
import { type Db, inTransaction } from "../db/client.js";
import type { EventsRepo } from "./events.repo.js";

/** Rows one retention step deletes. */
const PRUNE_CHUNK = 2_000;

export class Retention {
  /** Every id up to this one is gone: a listener behind it cannot resume. */
  floor: number;
  private readonly slack: number;
  private pruning = false;

  constructor(
    private readonly db: Db,
    private readonly repo: EventsRepo,
    private readonly keep: number,
    /** The newest committed id, when the log starts. */
    high: number,
    /** Runs in the deleting transaction, before the events up to the id given are deleted (the coverage folds them first). */
    private readonly beforePrune: (upTo: number) => void = () => undefined,
  ) {
    this.slack = Math.min(1_000, Math.ceil(keep / 100));
    const oldest = repo.oldest();
    this.floor = oldest === undefined ? high : oldest - 1;
  }

  /** Starts the background deletion when the log up to `high` is over `keep` by the slack. */
  schedule(high: () => number, closed: () => boolean): void {
    if (this.pruning || closed() || high() - this.floor <= this.keep + this.slack) return;
    this.pruning = true;
    const step = () => {
      let more = false;
      try {
        more = this.step(high(), closed());
      } catch {
        // a busy or closed file: the next commit tries again
      }
      if (more && !closed()) setImmediate(step);
      else this.pruning = false;
    };
    setImmediate(step);
  }

  /** Deletes one chunk of what is beyond the retention; true when more is left. */
  step(high: number, closed: boolean): boolean {
    if (closed || !this.db.$client.open) return false;
    const target = high - this.keep;
    if (target <= this.floor) return false;
    const upTo = Math.min(target, this.floor + PRUNE_CHUNK);
    const from = this.floor;
    inTransaction(this.db, () => {
      this.beforePrune(upTo);
      this.repo.prune(from, upTo);
    });
    this.floor = upTo;
    return upTo < target;
  }
}
