/**
 * ISO 8601 durations (`P1D`, `PT30M`, `P1Y2M`, `P3W`) added to instants in UTC, calendar-aware:
 * months and years keep the day of month and clamp at month end (Jan 31 + P1M = Feb 28/29).
 */
export interface Duration {
  years: number;
  months: number;
  weeks: number;
  days: number;
  hours: number;
  minutes: number;
  seconds: number;
}

/** An ISO 8601 duration as parseDuration reads it (the document shows this pattern beside `format: duration`). */
export const DURATION_PATTERN =
  /^P(?!$)(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/** What a duration must look like, for a 400's reason: the rule and examples. */
export const DURATION_REASON =
  'expected an ISO 8601 duration such as "PT3M" (3 minutes) or "P1M" (1 month): P, then nY nM nW nD, then T and nH nM nS';

/** Why `text` is not a duration: empty, negative, or not the syntax. */
export function durationReason(text: string): string {
  if (text === "") return `must not be empty: ${DURATION_REASON}`;
  if (text.startsWith("-")) return `must not be negative: ${DURATION_REASON}`;
  return DURATION_REASON;
}

export function parseDuration(text: string): Duration | undefined {
  const m = DURATION_PATTERN.exec(text);
  if (!m) return undefined;
  const n = (i: number) => (m[i] === undefined ? 0 : Number(m[i]));
  return { years: n(1), months: n(2), weeks: n(3), days: n(4), hours: n(5), minutes: n(6), seconds: n(7) };
}

/** Adds whole calendar months to a UTC instant, clamping the day to the target month's length. */
export function addMonths(ms: number, months: number): number {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const targetYear = y + Math.floor(m / 12);
  const targetMonth = ((m % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(targetYear, targetMonth + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  return Date.UTC(targetYear, targetMonth, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

export const DAY_MS = 86_400_000;

export function addDuration(ms: number, d: Duration): number {
  const afterMonths = addMonths(ms, d.years * 12 + d.months);
  return afterMonths + (d.weeks * 7 + d.days) * DAY_MS + d.hours * 3_600_000 + d.minutes * 60_000 + Math.round(d.seconds * 1000);
}
