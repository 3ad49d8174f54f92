/**
 * Everything that happens because time passes goes through here: scheduler ticks, webhook
 * deliveries and retries, challenge timeouts, delayed completions. Each source is a DueWork;
 * `runUntil(t)` runs whatever is due up to `t` in time order, moving the clock to each
 * instant as it goes, so a jump over a year runs the same work, in the same order, as a year
 * of waiting would (docs/control-plane.md#time-travel).
 */
import { performance } from "node:perf_hooks";
import type { BackgroundWrites } from "../db/checkpointer.js";
import type { Clock } from "../platform/clock.js";

export interface DueWork {
  /** Counter names this source reports in `ran` (e.g. "deliveries"). */
  readonly name: string;
  /** The earliest virtual ms at which it has something to do, or undefined for nothing. */
  nextDueAt(): number | undefined;
  /**
   * Does what is due at `now`; returns counts to add to `ran`. `deadline` (a `performance.now()`
   * instant, the end of the runner's slice) bounds a source whose work divides (rows, charges): it
   * does at least one unit, stops once past the deadline and leaves the rest due (nextDueAt still
   * says so), so no single run() holds the event loop much past the slice (docs/performance.md). Without one,
   * only the source's own count limit applies (tests that call run() by hand).
   */
  run(now: number, deadline?: number): Promise<Record<string, number>> | Record<string, number>;
  /**
   * Work run() started and left under way (webhook requests on the wire): a promise that settles
   * when some of it finishes and is recorded, or undefined when none is. A settling run waits on
   * it before it moves the clock on or returns, so what finishes can make more work due first.
   */
  pending?(): Promise<void> | undefined;
  /**
   * Counts of work the source started by itself since the last call, outside run() (the webhook
   * dispatcher claims what its recorded results made due in the same transaction). A
   * settling run adds them to `ran` after each wait on pending(); what was started before the run
   * began is not its work and is dropped.
   */
  took?(): Record<string, number> | undefined;
}

export interface RunOptions {
  /**
   * true (default): return only once everything due by the target has been attempted and recorded
   * (clock advance, tests). false: start what is due and return (background pokes and the
   * once-a-second tick), so one slow source never holds the others up.
   */
  settle?: boolean;
  /**
   * Stops the run between two pieces of work once aborted (clock advance: the client went away).
   * What ran stays done and the clock stays at the last instant fully run, never past it.
   */
  signal?: AbortSignal | undefined;
}

/**
 * Real ms of work after which a run yields to other I/O (health stays fast during a
 * long advance). Each source's run() is bounded by the slice too (its `deadline`), so a request
 * waits at most about one slice for the event loop.
 */
export const SLICE_MS = 5;

/** What a run did, by kind of work: every key its sources report (docs/control-plane.md#time-travel). */
export type RanCounts = { ticks: number; charges: number; deliveries: number; completions: number } & Record<string, number>;

/** Safety net against a source that keeps reporting work it never does. */
const MAX_STEPS = 5_000_000;

export interface DueWorkDeps {
  clock: Clock;
  /** The database's background writes, paused while a burst of work runs (default: none). */
  writes?: BackgroundWrites | undefined;
}

export class DueWorkRunner {
  private readonly sources: DueWork[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  private pokeScheduled = false;
  private pokeWaiters: Array<() => void> = [];

  /**
   * `writes`: the database's view of the runner as a background writer (src/db/checkpointer.ts
   * `backgroundWrites`): told while a run is under way, so that the WAL's restart during a long
   * advance pauses it (`paused()` returns a promise: the runner waits for it before its next piece of
   * work) rather than copying the WAL on the event loop.
   */
  private readonly writes: BackgroundWrites;

  constructor(private readonly deps: DueWorkDeps) {
    this.writes = deps.writes ?? { paused: () => undefined, running: () => undefined };
  }

  register(source: DueWork): void {
    this.sources.push(source);
  }

  /**
   * Runs all work due up to `target` (default: now), advancing the clock through each due
   * instant and finally to `target`. Calls are serialized: one run at a time.
   */
  runUntil(target?: number, opts: RunOptions = {}): Promise<RanCounts> {
    const run = this.chain.then(() => this.runSerial(target, opts.settle ?? true, opts.signal));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Asks for a run soon (coalesced): services call it after enqueuing work due now. */
  poke(): void {
    // a settling run waiting on requests in flight looks again at once
    for (const wake of this.pokeWaiters.splice(0)) wake();
    if (this.pokeScheduled) return;
    this.pokeScheduled = true;
    setImmediate(() => {
      this.pokeScheduled = false;
      void this.runUntil(undefined, { settle: false }).catch(() => undefined);
    });
  }

  /**
   * The earliest virtual ms any source has work at, or undefined for none (a closed sandbox's wake
   * time); `without`: that source's work not counted (a copy's, which skips its webhooks).
   */
  nextDueAt(without?: DueWork): number | undefined {
    let next: number | undefined;
    for (const source of this.sources) {
      if (source === without) continue;
      const at = source.nextDueAt();
      if (at !== undefined && (next === undefined || at < next)) next = at;
    }
    return next;
  }

  /** Resolves when every run started so far has finished. */
  idle(): Promise<unknown> {
    return this.chain;
  }

  private async runSerial(target: number | undefined, settle: boolean, signal?: AbortSignal): Promise<RanCounts> {
    this.writes.running(true);
    try {
      return await this.runSteps(target, settle, signal);
    } finally {
      this.writes.running(false);
    }
  }

  private async runSteps(target: number | undefined, settle: boolean, signal?: AbortSignal): Promise<RanCounts> {
    const ran: RanCounts = { ticks: 0, charges: 0, deliveries: 0, completions: 0 };
    for (const source of this.sources) source.took?.(); // started before this run: not its work
    let until = target ?? this.deps.clock.nowMs();
    let sliceStart = performance.now();
    for (let step = 0; step < MAX_STEPS; step++) {
      if (performance.now() - sliceStart > SLICE_MS) {
        // run in slices: let requests (health, payments, results of webhooks) in between
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
      const paused = this.writes.paused();
      if (paused) {
        await paused;
        sliceStart = performance.now();
      }
      if (signal?.aborted) return ran;
      let best: { source: DueWork; at: number } | undefined;
      for (const source of this.sources) {
        const at = source.nextDueAt();
        if (at !== undefined && at <= until && (best === undefined || at < best.at)) best = { source, at };
      }
      if (settle && (!best || best.at > this.deps.clock.nowMs())) {
        // before time moves on (or the run ends), what is under way must finish: its results
        // (a retry time, the next delivery of an orderKey) may be due before `best`
        const waits = this.sources.map((s) => s.pending?.()).filter((p): p is Promise<void> => p !== undefined);
        if (waits.length > 0) {
          for (const w of waits) w.catch(() => undefined); // the race reports it; later ones are not unhandled
          await Promise.race([...waits, new Promise<void>((resolve) => this.pokeWaiters.push(resolve))]);
          this.addTook(ran);
          // a running clock (time scale) moved while we waited: what became due meanwhile (the next
          // delivery of an orderKey whose head just settled) is due "by now" too, so a run that settles
          // answers only after it was attempted (docs/control-plane.md#time-travel)
          until = Math.max(until, this.deps.clock.nowMs());
          continue;
        }
      }
      if (!best) break;
      if (best.at > this.deps.clock.nowMs()) this.deps.clock.advanceTo(best.at);
      const counts = await best.source.run(this.deps.clock.nowMs(), sliceStart + SLICE_MS);
      for (const [k, v] of Object.entries(counts)) ran[k] = (ran[k] ?? 0) + v;
    }
    if (until > this.deps.clock.nowMs()) this.deps.clock.advanceTo(until);
    this.addTook(ran);
    return ran;
  }

  private addTook(ran: RanCounts): void {
    for (const source of this.sources) {
      const took = source.took?.();
      if (took) for (const [k, v] of Object.entries(took)) ran[k] = (ran[k] ?? 0) + v;
    }
  }
}
