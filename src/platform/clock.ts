/**
 * The one source of time: nothing else reads the system clock, and tests advance a manual one. Every date the sandbox hands out, every
 * expiry and every scheduled job reads a Clock, so tests can move time by asking
 * instead of sleeping, and `/_sandbox/clock/advance` can jump a running server forward.
 */
export interface Clock {
  /** Virtual milliseconds since the Unix epoch. */
  nowMs(): number;
  now(): Date;
  /** Moves virtual time forward to `ms`. Backwards is refused (a RangeError). */
  advanceTo(ms: number): void;
  /** Puts virtual time back to `ms` (only `/_sandbox/reset` does this). */
  resetTo(ms: number): void;
  /** Virtual seconds per real second. */
  readonly scale: number;
}

/** The clock never passes this: later dates have no 4-digit-year ISO 8601 form. */
export const MAX_CLOCK_MS = Date.UTC(9999, 0, 1);
export const MAX_CLOCK_ISO = "9999-01-01T00:00:00.000Z";

/** Real wall-clock milliseconds. The only place the process reads the system time. */
export const realNowMs = (): number => Date.now();

/** What an instant must look like, for a 400's reason: the rule and an example. */
export const INSTANT_REASON =
  'expected an ISO 8601 instant such as "2026-01-15T12:00:00Z" (a date alone, "2026-01-15", is its midnight UTC)';

/** The instants parseInstant reads (the document shows this pattern beside `format: date-time`). */
export const INSTANT_PATTERN = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Parses an ISO 8601 timestamp into ms, or undefined when it is not one. */
export function parseInstant(value: string): number | undefined {
  if (!INSTANT_PATTERN.test(value)) return undefined;
  const ms = new Date(value.length === 10 ? `${value}T00:00:00Z` : value).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * ISO 8601 UTC of a virtual instant. The last one is kept: a billing run formats the same instant
 * for every charge's event (1% of a 1,000,000-charge advance).
 */
export function toIso(ms: number): string {
  if (ms !== lastIsoMs) {
    lastIso = new Date(ms).toISOString(); // an invalid instant throws here, as before, and is never kept
    lastIsoMs = ms;
  }
  return lastIso;
}
let lastIsoMs = Number.NaN;
let lastIso = "";

/** `YYYY-MM-DD` of a virtual instant, in UTC. */
export const toDateString = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * The running server's clock: `start + scale × real elapsed + jumps`. `advanceTo` and
 * `resetTo` re-anchor it, so the clock keeps running at `scale` from the new instant.
 */
export class VirtualClock implements Clock {
  private anchorVirtual: number;
  private anchorReal: number;

  constructor(
    startMs: number,
    readonly scale = 1,
    private readonly realNow: () => number = realNowMs,
  ) {
    this.anchorVirtual = startMs;
    this.anchorReal = realNow();
  }

  nowMs(): number {
    return Math.floor(this.anchorVirtual + this.scale * (this.realNow() - this.anchorReal));
  }

  now(): Date {
    return new Date(this.nowMs());
  }

  advanceTo(ms: number): void {
    if (ms < this.nowMs()) throw new RangeError("the clock cannot go backwards");
    this.resetTo(ms);
  }

  resetTo(ms: number): void {
    this.anchorVirtual = ms;
    this.anchorReal = this.realNow();
  }
}

/** A clock that moves only when told: unit and HTTP tests use it. */
export class ManualClock implements Clock {
  readonly scale = 0;
  constructor(private current: number = Date.UTC(2026, 0, 1)) {}

  nowMs(): number {
    return this.current;
  }

  now(): Date {
    return new Date(this.current);
  }

  advanceTo(ms: number): void {
    if (ms < this.current) throw new RangeError("the clock cannot go backwards");
    this.current = ms;
  }

  /** Moves forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.advanceTo(this.current + ms);
  }

  resetTo(ms: number): void {
    this.current = ms;
  }
}
