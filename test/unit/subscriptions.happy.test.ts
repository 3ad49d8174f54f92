import { describe, expect, it } from "vitest";
import { type Period, slotAfter, slotDate, slotIndexAt, slotOnOrAfter } from "../../src/modules/subscriptions/schedule.js";
import { lookAtOf } from "../../src/modules/subscriptions/subscriptions.rules.js";
import { addDays, isIsoDate } from "../../src/platform/dates.js";

const monthly: Period = { frequency: "MONTHLY", interval: 1 };
/** The first `count` slots after the anchor, each from the previous charge date (as the scheduler moves). */
function chain(anchor: string, p: Period, count: number): string[] {
  const out: string[] = [];
  let d = anchor;
  for (let i = 0; i < count; i++) {
    d = slotAfter(anchor, p, d);
    out.push(d);
  }
  return out;
}

describe("schedule: month ends clamp without drifting (docs/subscriptions.md)", () => {
  it("Jan 31 monthly → Feb 28 → Mar 31 → Apr 30, not Mar 28", () => {
    expect(chain("2026-01-31", monthly, 4)).toEqual(["2026-02-28", "2026-03-31", "2026-04-30", "2026-05-31"]);
  });

  it("leap years: Jan 31 2028 → Feb 29; Feb 29 2028 yearly-ish (MONTHLY×12) → Feb 28 2029 → Feb 29 2032 stays on the 29th", () => {
    expect(chain("2028-01-31", monthly, 2)).toEqual(["2028-02-29", "2028-03-31"]);
    const yearly: Period = { frequency: "MONTHLY", interval: 12 };
    expect(chain("2028-02-29", yearly, 4)).toEqual(["2029-02-28", "2030-02-28", "2031-02-28", "2032-02-29"]);
  });

  it("MONTHLY×3 is quarterly from the 30th: Nov 30 → Feb 28 → May 30 → Aug 30", () => {
    expect(chain("2025-11-30", { frequency: "MONTHLY", interval: 3 }, 3)).toEqual(["2026-02-28", "2026-05-30", "2026-08-30"]);
  });

  it("WEEKLY×2 is every 14 days, across a year end", () => {
    expect(chain("2026-12-21", { frequency: "WEEKLY", interval: 2 }, 3)).toEqual(["2027-01-04", "2027-01-18", "2027-02-01"]);
  });

  it("CUSTOM 45 is every 45 days, through Feb 29 of a leap year", () => {
    expect(chain("2028-01-01", { frequency: "CUSTOM", interval: 45 }, 3)).toEqual(["2028-02-15", "2028-03-31", "2028-05-15"]);
  });

  it("DAILY×1 and DAILY×3", () => {
    expect(chain("2026-02-27", { frequency: "DAILY", interval: 1 }, 3)).toEqual(["2026-02-28", "2026-03-01", "2026-03-02"]);
    expect(chain("2026-02-27", { frequency: "DAILY", interval: 3 }, 2)).toEqual(["2026-03-02", "2026-03-05"]);
  });

  it("slot k is always anchor + k periods, whatever date the previous charge ran on", () => {
    expect(slotDate("2026-01-31", monthly, 13)).toBe("2027-02-28");
    expect(slotDate("2026-01-31", monthly, 14)).toBe("2027-03-31");
    // a retry two days after the Feb 28 slot still moves on to the Mar 31 slot
    expect(slotAfter("2026-01-31", monthly, "2026-03-02")).toBe("2026-03-31");
  });

  it("slotIndexAt: the last slot on or before a date; -1 before the anchor", () => {
    expect(slotIndexAt("2026-01-31", monthly, "2026-01-30")).toBe(-1);
    expect(slotIndexAt("2026-01-31", monthly, "2026-01-31")).toBe(0);
    expect(slotIndexAt("2026-01-31", monthly, "2026-02-27")).toBe(0);
    expect(slotIndexAt("2026-01-31", monthly, "2026-02-28")).toBe(1);
    expect(slotIndexAt("2026-01-15", { frequency: "WEEKLY", interval: 1 }, "2026-01-28")).toBe(1);
  });

  it("a daily retry that lands on the next slot moves past it: never two charges on one day", () => {
    expect(slotAfter("2026-01-01", { frequency: "DAILY", interval: 1 }, "2026-01-06")).toBe("2026-01-07");
  });

  it("slotOnOrAfter (resume): today when today is a slot, else the next slot; the anchor when it is ahead", () => {
    expect(slotOnOrAfter("2026-01-31", monthly, "2026-02-28")).toBe("2026-02-28");
    expect(slotOnOrAfter("2026-01-31", monthly, "2026-03-01")).toBe("2026-03-31");
    expect(slotOnOrAfter("2026-06-01", monthly, "2026-03-01")).toBe("2026-06-01");
  });

  it("isIsoDate accepts only real calendar dates; addDays crosses months", () => {
    expect(isIsoDate("2028-02-29")).toBe(true);
    expect(isIsoDate("2026-02-29")).toBe(false);
    expect(isIsoDate("2026-13-01")).toBe(false);
    expect(isIsoDate("2026-1-01")).toBe(false);
    expect(isIsoDate("2026-01-01T00:00:00Z")).toBe(false);
    expect(addDays("2026-02-28", 1)).toBe("2026-03-01");
  });
});

describe("lookAtOf: when the scheduler next looks at a subscription", () => {
  const day = (d: string) => Date.parse(`${d}T00:00:00Z`);
  it("00:00 UTC of nextChargeDate while ACTIVE or TRIALING", () => {
    expect(lookAtOf({ status: "ACTIVE", nextChargeDate: "2026-03-01", endDate: null })).toBe(day("2026-03-01"));
    expect(lookAtOf({ status: "TRIALING", nextChargeDate: "2026-03-01", endDate: "2026-12-31" })).toBe(day("2026-03-01"));
  });
  it("the day after endDate when that comes first, also for PAUSED; nothing for CANCELED and PENDING", () => {
    expect(lookAtOf({ status: "ACTIVE", nextChargeDate: "2026-03-01", endDate: "2026-02-20" })).toBe(day("2026-02-21"));
    expect(lookAtOf({ status: "PAUSED", nextChargeDate: null, endDate: "2026-02-20" })).toBe(day("2026-02-21"));
    expect(lookAtOf({ status: "PAUSED", nextChargeDate: null, endDate: null })).toBeNull();
    expect(lookAtOf({ status: "CANCELED", nextChargeDate: "2026-03-01", endDate: null })).toBeNull();
    expect(lookAtOf({ status: "PENDING", nextChargeDate: "2026-03-01", endDate: null })).toBeNull();
  });
});
