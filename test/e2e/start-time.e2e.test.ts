/**
 * Start-up honesty (docs/configuration.md, docs/control-plane.md): a reused database keeps its clock, and a --start-time that
 * asks for another is reported on start, naming both times and how to reset to it.
 */
import { describe, expect, it } from "vitest";
import { startServer, tempDbPath } from "../helpers/server.js";

describe("--start-time on a reused database", () => {
  it("warns, naming the persisted time, the asked time and the reset call; reset {startTime} then applies it", async () => {
    const dbPath = tempDbPath();
    const first = await startServer({ dbPath, args: ["--start-time", "2026-01-15T00:00:00Z"] });
    expect(first.output()).not.toMatch(/ignored/);
    await first.stop();

    const second = await startServer({ dbPath, args: ["--start-time", "2026-06-01T00:00:00Z"] });
    try {
      const out = second.output();
      expect(out).toMatch(/--start-time 2026-06-01T00:00:00.000Z ignored/);
      expect(out).toMatch(/persisted clock at 2026-01-15T00:00/);
      expect(out).toContain("/_sandbox/reset");
      expect(out).toMatch(/startTime\W+2026-06-01T00:00:00.000Z/);
      const reset = await fetch(`${second.url}/_sandbox/reset`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ startTime: "2026-06-01T00:00:00Z" }),
      });
      expect(((await reset.json()) as { now: string }).now).toMatch(/^2026-06-01T00:00/);
    } finally {
      await second.stop();
    }
  });
});
