import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/platform/clock.js";
import { type DueWork, DueWorkRunner } from "../../src/scheduler/due-work.js";

/** A source that has work at fixed instants and records when it ran. */
function source(name: string, at: number[], log: Array<[string, number]>): DueWork {
  const pending = [...at].sort((a, b) => a - b);
  return {
    name,
    nextDueAt: () => pending[0],
    run(now) {
      while (pending[0] !== undefined && pending[0] <= now) {
        pending.shift();
        log.push([name, now]);
      }
      return { [name]: 1 };
    },
  };
}

describe("due work runner", () => {
  it("runs every source's work in time order, with the clock at each instant, then lands on the target", async () => {
    const clock = new ManualClock(0);
    const runner = new DueWorkRunner({ clock });
    const log: Array<[string, number]> = [];
    runner.register(source("ticks", [300, 600, 900], log));
    runner.register(source("deliveries", [100, 650, 5000], log));
    const ran = await runner.runUntil(1000);
    expect(log).toEqual([
      ["deliveries", 100],
      ["ticks", 300],
      ["ticks", 600],
      ["deliveries", 650],
      ["ticks", 900],
    ]);
    expect(ran).toMatchObject({ ticks: 3, deliveries: 2, charges: 0 });
    expect(clock.nowMs()).toBe(1000);
    await runner.runUntil(6000);
    expect(log.at(-1)).toEqual(["deliveries", 5000]);
  });

  it("runs work that a run makes due at the same instant", async () => {
    const clock = new ManualClock(0);
    const runner = new DueWorkRunner({ clock });
    const queue: number[] = [];
    const delivered: number[] = [];
    let ticked = false;
    runner.register({
      name: "ticks",
      nextDueAt: () => (ticked ? undefined : 10),
      run(now) {
        ticked = true;
        queue.push(now); // e.g. a charge enqueues a webhook due now
        return { ticks: 1 };
      },
    });
    runner.register({
      name: "deliveries",
      nextDueAt: () => queue[0],
      run(now) {
        delivered.push(...queue.splice(0));
        expect(now).toBe(10);
        return { deliveries: delivered.length };
      },
    });
    const ran = await runner.runUntil(20);
    expect(delivered).toEqual([10]);
    expect(ran).toMatchObject({ ticks: 1, deliveries: 1 });
  });

  it("serializes concurrent runs", async () => {
    const clock = new ManualClock(0);
    const runner = new DueWorkRunner({ clock });
    let active = 0;
    let maxActive = 0;
    let due: number | undefined = 5;
    runner.register({
      name: "x",
      nextDueAt: () => due,
      async run() {
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise((r) => setImmediate(r));
        active--;
        due = undefined;
        return {};
      },
    });
    await Promise.all([runner.runUntil(10), runner.runUntil(10), runner.runUntil(10)]);
    expect(maxActive).toBe(1);
  });
});

describe("a settling run while the clock runs on (time scale)", () => {
  it("also runs what became due while it waited for work under way: the next delivery behind one that just settled", async () => {
    const clock = new ManualClock(1_000);
    const runner = new DueWorkRunner({ clock });
    const sent: number[] = [];
    let inFlight: Promise<void> | undefined;
    let next: number | undefined;
    // a head delivery on the wire; when it settles (at a later clock time) the next one becomes due then
    const dispatcher: DueWork = {
      name: "deliveries",
      nextDueAt: () => next,
      run(now) {
        sent.push(now);
        next = undefined;
        return { deliveries: 1 };
      },
      pending: () => inFlight,
    };
    runner.register(dispatcher);
    inFlight = new Promise<void>((resolve) =>
      setImmediate(() => {
        clock.advance(5); // real time passed while the request was out
        next = clock.nowMs();
        inFlight = undefined;
        resolve();
      }),
    );
    const ran = await runner.runUntil(); // "by now", like POST /_sandbox/clock/advance {"by":"PT0S"}
    expect(sent).toEqual([1_005]);
    expect(ran.deliveries).toBe(1);
  });
});
