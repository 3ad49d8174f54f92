/**
 * Deliveries taken in a group-commit batch (docs/performance.md): the outbox wrote them already in
 * flight inside the open batch; they are sent right after its COMMIT, with no claim query or
 * UPDATE. If a savepoint of the batch was undone since the first was taken, only those whose rows
 * are still there go; if the batch never commits, they are forgotten (their rows are gone).
 */
import type { Logger } from "../logger.js";
import type { Destinations, Flight } from "./destinations.js";
import type { DeliveryCommits } from "./group-commit.js";
import type { WebhooksRepo } from "./webhooks.repo.js";

export class TakenDeliveries {
  private taken: Flight[] = [];
  /** `commits.undone()` when the open batch's first delivery was taken. */
  private undoneAtFirst = 0;
  private readonly key = {};

  constructor(
    private readonly commits: DeliveryCommits,
    private readonly lanes: Destinations,
    private readonly repo: WebhooksRepo,
    private readonly logger: Logger,
    /** Sends committed flights. */
    private readonly start: (flights: Flight[]) => void,
  ) {}

  get size(): number {
    return this.taken.length;
  }

  /** A flight (already counted against its destination) to send once the open batch commits. */
  add(f: Flight): void {
    if (this.taken.length === 0) this.undoneAtFirst = this.commits.undone();
    this.taken.push(f);
    this.commits.beforeCommit(
      this.key,
      () => this.beforeCommit(),
      () => this.lanes.unclaim(this.untake()), // SQLite rolled the batch back: the rows are gone
    );
  }

  /** The flights taken in the open batch that are still on the wire (not interrupted or replaced). */
  private untake(): Flight[] {
    const flights = this.taken;
    this.taken = [];
    return flights.filter((f) => this.lanes.flights.get(f.row.seq) === f);
  }

  /** Just before the batch's COMMIT: what was taken and is still there (a rolled-back request took its row with it). */
  private beforeCommit(): (committed: boolean) => void {
    const rolledBack = this.commits.undone() !== this.undoneAtFirst;
    const flights = this.untake();
    let kept = flights;
    // no savepoint of the batch was undone since the first take: every taken row is still there
    if (rolledBack) {
      try {
        const still = this.repo.stillInFlight(flights.map((f) => f.row));
        kept = flights.filter((f) => still.has(f.row.seq));
        this.lanes.unclaim(flights.filter((f) => !kept.includes(f)));
      } catch (err) {
        // cannot happen short of a broken file (whose COMMIT then fails too); rather send them all
        // than leave rows in flight that nobody sends
        this.logger.error({ err }, "checking the webhooks taken in a batch failed; sending them all");
      }
    }
    return (committed) => {
      if (committed) this.start(kept);
      else this.lanes.unclaim(kept);
    };
  }
}
