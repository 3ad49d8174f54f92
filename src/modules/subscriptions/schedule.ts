/**
 * Subscription date math (docs/gateway.md#requests-and-answers, docs/subscriptions.md), on UTC calendar
 * dates written `YYYY-MM-DD`. A schedule is an anchor date plus a period; its k-th slot is
 * `anchor + k × period`, always computed from the anchor so month-end clamping never drifts
 * (Jan 31 → Feb 28 → Mar 31, not Mar 28).
 */
import { toDateString } from "../../platform/clock.js";
import { midnightOf } from "../../platform/dates.js";
import { addMonths, DAY_MS } from "../../platform/duration.js";

export const FREQUENCIES = ["DAILY", "WEEKLY", "MONTHLY", "CUSTOM"] as const;
export type Frequency = (typeof FREQUENCIES)[number];

export interface Period {
  frequency: Frequency;
  /** ≥ 1: WEEKLY×2 = every 2 weeks, MONTHLY×3 = quarterly, CUSTOM×45 = every 45 days. */
  interval: number;
}

/** Days per period for the day-based frequencies; undefined for MONTHLY. */
function periodDays(p: Period): number | undefined {
  switch (p.frequency) {
    case "DAILY":
    case "CUSTOM":
      return p.interval;
    case "WEEKLY":
      return 7 * p.interval;
    case "MONTHLY":
      return undefined;
  }
}

/** The k-th slot of the schedule (k = 0 is the anchor itself). */
export function slotDate(anchor: string, p: Period, k: number): string {
  const days = periodDays(p);
  if (days === undefined) return toDateString(addMonths(midnightOf(anchor), k * p.interval));
  return toDateString(midnightOf(anchor) + k * days * DAY_MS);
}

/** The index of the last slot on or before `date`; -1 when `date` is before the anchor. */
export function slotIndexAt(anchor: string, p: Period, date: string): number {
  if (date < anchor) return -1;
  const days = periodDays(p);
  if (days !== undefined) return Math.floor((midnightOf(date) - midnightOf(anchor)) / (days * DAY_MS));
  const months = (y: string) => Number(y.slice(0, 4)) * 12 + Number(y.slice(5, 7));
  let k = Math.floor((months(date) - months(anchor)) / p.interval);
  while (k > 0 && slotDate(anchor, p, k) > date) k--;
  return k;
}

/**
 * The first slot strictly after `date`: where a successful charge on `date` moves the schedule.
 * Remembered (a pure function): a billing run moves many subscriptions of the same start date and
 * period from the same date, and the month arithmetic was 3% of a charge's time when measured.
 */
export function slotAfter(anchor: string, p: Period, date: string): string {
  const key = `${anchor} ${p.frequency} ${p.interval} ${date}`;
  let slot = slotsAfter.get(key);
  if (slot === undefined) {
    slot = slotDate(anchor, p, slotIndexAt(anchor, p, date) + 1);
    if (slotsAfter.size >= 10_000) slotsAfter.clear();
    slotsAfter.set(key, slot);
  }
  return slot;
}
const slotsAfter = new Map<string, string>();

/** The first slot on or after `date`: where a resumed subscription charges next. */
export function slotOnOrAfter(anchor: string, p: Period, date: string): string {
  const k = slotIndexAt(anchor, p, date);
  if (k < 0) return anchor;
  const at = slotDate(anchor, p, k);
  return at === date ? at : slotDate(anchor, p, k + 1);
}
