/**
 * The control plane's domain (docs/control-plane.md): reset, clock jumps and scenario loading. Reads
 * have no side effects; everything a test could get by waiting it can get by asking.
 */
import { getTableName, is, sql } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Config } from "../config.js";
import { type Db, inTransaction } from "../db/client.js";
import type { ClockStore } from "../db/clock-store.js";
import * as schema from "../db/schema/index.js";
import type { EventLog } from "../events/event-log.js";
import type { MerchantService } from "../modules/merchants/merchants.service.js";
import type { Clock } from "../platform/clock.js";
import { INSTANT_REASON, MAX_CLOCK_ISO, MAX_CLOCK_MS, parseInstant, realNowMs, toIso } from "../platform/clock.js";
import { addDuration, durationReason, parseDuration } from "../platform/duration.js";
import { badRequest, invalidField, SandboxError } from "../platform/errors.js";
import type { ScenarioService } from "../scenarios/scenario.service.js";
import type { DueWorkRunner, RanCounts } from "../scheduler/due-work.js";
import { SCHEDULER_TICK_MS } from "../scheduler/subscriptions.js";
import { restoreImage } from "../snapshots/images.js";
import { BY_OR_TO } from "./control.wire.js";

const MAX_JUMP_MS = 36_525 * 86_400_000;

/**
 * Tables reset keeps: instance identity (JWT secret), the other sandboxes of the server (a reset
 * of the root resets the root only, docs/parallel-suites.md) and the live events (docs/events.md: a listener sees
 * the reset among the other events, and its ids never go back). Every other table is emptied.
 */
const KEPT_TABLES = new Set<string>([
  getTableName(schema.sandboxState),
  getTableName(schema.sandboxes),
  getTableName(schema.events),
]);

export interface ControlDeps {
  config: Pick<Config, "startTime" | "scenarios">;
  db: Db;
  clock: Clock;
  clockStore: ClockStore;
  work: DueWorkRunner;
  merchants: MerchantService;
  scenarios: ScenarioService;
  /** The live events: `reset` and `clock` (docs/events.md). */
  events: Pick<EventLog, "reset" | "clock">;
  /** The image this sandbox was copied from, which a reset with `snapshot` goes back to (docs/snapshots.md). */
  origin?: () => Buffer | undefined;
}

export class ControlService {
  private readonly resetHooks: Array<(restored: boolean) => void> = [];
  private readonly ctx: ControlDeps;

  constructor(deps: ControlDeps) {
    this.ctx = deps;
  }

  /**
   * Services with in-memory state register here to drop it on reset; `restored` is true when the
   * reset went back to a copy's snapshot (what was loaded then is back already).
   */
  onReset(hook: (restored: boolean) => void): void {
    this.resetHooks.push(hook);
  }

  /** The instant reset puts the clock back to: SANDBOX_START_TIME, or the real time now. */
  startTime(): number {
    return this.ctx.config.startTime ?? realNowMs();
  }

  /**
   * Drops every transaction, token, subscription and delivery; reloads the built-in merchant
   * and the start scenario files; puts the clock back to its start, or to `startTime` (docs/control-plane.md:
   * how a reused database gets the start time a docs example or a test suite expects).
   */
  async reset(opts: { startTime?: number; snapshot?: boolean } = {}): Promise<void> {
    await this.ctx.work.idle();
    // with `snapshot`, a copy goes back to the image it was made from (docs/snapshots.md); any other does the reset below
    const origin = opts.snapshot ? this.ctx.origin?.() : undefined;
    let originNow: number | undefined;
    if (origin) {
      inTransaction(this.ctx.db, () => {
        originNow = restoreImage(this.ctx.db, origin);
        this.ctx.events.reset();
      });
    } else {
      const tables = (Object.values(schema) as unknown[]).filter((t): t is SQLiteTable => is(t, SQLiteTable));
      inTransaction(this.ctx.db, () => {
        for (const t of tables) {
          if (!KEPT_TABLES.has(getTableName(t))) this.ctx.db.run(sql`DELETE FROM ${t}`);
        }
        this.ctx.events.reset();
      });
      this.ctx.merchants.seedBuiltin();
      for (const file of this.ctx.config.scenarios) this.ctx.scenarios.loadFile(file);
    }
    this.ctx.scenarios.changed();
    const from = this.ctx.clock.nowMs();
    const to = opts.startTime ?? originNow ?? this.startTime();
    this.ctx.clock.resetTo(to);
    // the event says the instant the clock was put at, not a read of the running clock a moment later
    this.moved(from, to);
    for (const hook of this.resetHooks) hook(origin !== undefined);
  }

  /** `{by: "P1D"}` or `{to: ISO}`; runs everything due on the way. Backwards → 400. */
  async advance(
    input: { by?: string | undefined; to?: string | undefined },
    signal?: AbortSignal,
  ): Promise<{ now: string; ran: RanCounts }> {
    const now = this.ctx.clock.nowMs();
    let target: number;
    // the route's schema refuses these first (sandbox.routes.ts); callers in process (testing/) get the same answers
    if (input.by !== undefined && input.to !== undefined) {
      throw invalidField("to", `not allowed together with by: ${BY_OR_TO}, not both`);
    }
    if (input.by !== undefined) {
      const d = parseDuration(input.by);
      if (!d) throw invalidField("by", durationReason(input.by));
      target = addDuration(now, d);
      if (!Number.isFinite(target) || target > MAX_CLOCK_MS) {
        throw badRequest(`Invalid field: by (the clock cannot pass ${MAX_CLOCK_ISO}; now is ${toIso(now)})`);
      }
    } else if (input.to !== undefined) {
      const t = parseInstant(input.to);
      if (t === undefined) throw invalidField("to", INSTANT_REASON);
      if (t < now) throw badRequest(`Invalid field: to (the clock cannot go backwards: now is ${toIso(now)})`);
      if (t > MAX_CLOCK_MS) throw badRequest(`Invalid field: to (the clock cannot pass ${MAX_CLOCK_ISO})`);
      target = t;
    } else {
      throw new SandboxError("BAD_REQUEST", "Missing required field: by", [{ field: "by", message: `required: ${BY_OR_TO}` }]);
    }
    // One jump covers at most a century: the scheduler runs every charge on the way, and dates past
    // year 9999 have no ISO 8601 form.
    if (target - now > MAX_JUMP_MS) {
      throw badRequest(`Invalid field: ${input.by !== undefined ? "by" : "to"} (at most 100 years at once)`);
    }
    // In slices, yielding to other requests; stops where it is when the client goes away.
    const ran = await this.ctx.work.runUntil(target, { signal });
    // Every 5-minute scheduler boundary passed over counts as a tick, whether or not it had work
    // (the scheduler itself wakes only where charges are due).
    const reached = this.ctx.clock.nowMs();
    ran.ticks = Math.floor(reached / SCHEDULER_TICK_MS) - Math.floor(now / SCHEDULER_TICK_MS);
    this.moved(now, reached);
    return { now: toIso(this.ctx.clock.nowMs()), ran };
  }

  /** Persists the clock after a jump and, when it moved, says so to the listeners (docs/events.md `clock`). */
  private moved(from: number, to = this.ctx.clock.nowMs()): void {
    inTransaction(this.ctx.db, () => {
      this.ctx.clockStore.save();
      if (to !== from) this.ctx.events.clock(from, to);
    });
  }
}
