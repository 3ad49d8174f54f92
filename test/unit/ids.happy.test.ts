import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/platform/clock.js";
import { timeOrderedIds } from "../../src/platform/ids.js";

/** How many times an id sorts before the one made just before it. */
const descents = (ids: string[]) => ids.filter((id, i) => i > 0 && id < (ids[i - 1] as string)).length;

describe("time-ordered ids (src/platform/ids.ts)", () => {
  it("are 20 URL-safe characters after their prefix, each one new", () => {
    const ids = timeOrderedIds(new ManualClock(Date.UTC(2026, 2, 1)));
    const made = Array.from({ length: 5000 }, () => ids.next("transaction"));
    for (const id of made) expect(id).toMatch(/^tx_[0-9A-Za-z]{20}$/);
    expect(new Set(made).size).toBe(made.length);
  });

  it("made at one instant (a clock advance's charges), they sort in the order they were made", () => {
    // the sequence starts at a random value and wraps once in 238,328 ids: at most one step back
    const ids = timeOrderedIds(new ManualClock(Date.UTC(2026, 2, 1)));
    const made = Array.from({ length: 5000 }, (_, i) => ids.next(i % 2 ? "webhook" : "transaction"));
    expect(descents(made.filter((id) => id.startsWith("tx_")))).toBeLessThanOrEqual(1);
    expect(descents(made.filter((id) => id.startsWith("wh_")))).toBeLessThanOrEqual(1);
  });

  it("made later, they sort after the earlier ones", () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1));
    const ids = timeOrderedIds(clock);
    const made: string[] = [];
    for (let i = 0; i < 100; i++) {
      made.push(ids.next("transaction"));
      clock.advance(1);
    }
    expect(descents(made)).toBe(0);
  });
});
