import { sql } from "drizzle-orm";
import type { Clock } from "../platform/clock.js";
import type { Db } from "./client.js";
import { transactions, webhookAttempts, webhookDeliveries } from "./schema/index.js";
import { setState, stateValue } from "./state.js";

const KEY = "clock_now_ms";

export interface ClockStoreDeps {
  db: Db;
  clock: Clock;
}

/** Persists the virtual clock so a restart continues from where time was (docs/configuration.md). */
export class ClockStore {
  constructor(private readonly deps: ClockStoreDeps) {}

  /**
   * Where a restart resumes (docs/configuration.md; after a crash too): the last saved virtual time, but
   * never behind the newest record. The clock is saved once a real second, so after a kill -9 the
   * saved time can lag what was written since; time must not run backwards past it.
   */
  load(): number | undefined {
    const value = stateValue(this.deps.db, KEY);
    const saved = value === undefined ? undefined : Number(value);
    const newest = this.newestRecordAt();
    if (saved === undefined) return newest;
    return newest === undefined ? saved : Math.max(saved, newest);
  }

  /** The latest virtual time any transaction, delivery or attempt was written at. */
  newestRecordAt(): number | undefined {
    const [a, b, c] = [
      this.deps.db
        .select({ at: sql<number | null>`max(${transactions.updatedAt})` })
        .from(transactions)
        .get()?.at,
      this.deps.db
        .select({ at: sql<number | null>`max(${webhookDeliveries.updatedAt})` })
        .from(webhookDeliveries)
        .get()?.at,
      this.deps.db
        .select({ at: sql<number | null>`max(${webhookAttempts.at})` })
        .from(webhookAttempts)
        .get()?.at,
    ];
    const all = [a, b, c].filter((v): v is number => typeof v === "number");
    return all.length === 0 ? undefined : Math.max(...all);
  }

  save(): void {
    setState(this.deps.db, KEY, String(this.deps.clock.nowMs()));
  }
}
