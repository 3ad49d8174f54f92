import { eq } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { sandboxState } from "../db/schema/index.js";
import type { Clock } from "../platform/clock.js";

const KEY = "clock_now_ms";

/** Persists the virtual clock so a restart continues from where time was (CONTRACT §1). */
export class ClockStore {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** The last saved virtual time, if any. */
  load(): number | undefined {
    const row = this.db.select().from(sandboxState).where(eq(sandboxState.key, KEY)).get();
    return row ? Number(row.value) : undefined;
  }

  save(): void {
    const value = String(this.clock.nowMs());
    this.db
      .insert(sandboxState)
      .values({ key: KEY, value })
      .onConflictDoUpdate({ target: sandboxState.key, set: { value } })
      .run();
  }
}
