/**
 * Calendar dates written `YYYY-MM-DD`, in UTC (docs/gateway.md#requests-and-answers): subscription
 * schedules (src/modules/subscriptions/schedule.ts) and token expiry dates both count in them.
 */
import { toDateString } from "./clock.js";
import { DAY_MS } from "./duration.js";

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A real calendar date in `YYYY-MM-DD` form (so `2026-02-30` is refused). */
export function isIsoDate(value: string): boolean {
  if (!DATE.test(value)) return false;
  const ms = Date.parse(`${value}T00:00:00Z`);
  return !Number.isNaN(ms) && toDateString(ms) === value;
}

/** 00:00 UTC of a date: the instant a charge on that date is due (docs/subscriptions.md). */
export const midnightOf = (date: string): number => Date.parse(`${date}T00:00:00Z`);

export const addDays = (date: string, days: number): string => toDateString(midnightOf(date) + days * DAY_MS);
