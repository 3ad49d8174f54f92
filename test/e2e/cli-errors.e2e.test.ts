/**
 * The built command's refusals say what to do: a taken port names --port and PORT, a bad setting
 * its rule (docs/configuration.md).
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { runCli, tempDbPath } from "../helpers/server.js";

describe("paysandbox start refusals", () => {
  it("a port already in use → exit 1 naming --port and PORT", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const res = await runCli(["start", "--host", "127.0.0.1", "--port", String(port), "--db", tempDbPath()]);
      expect(res.code).toBe(1);
      expect(res.output).toContain(
        `paysandbox: cannot listen on 127.0.0.1:${port}: port ${port} is already in use; choose another with --port <n> or PORT=<n> (--port 0 takes any free port)`,
      );
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  }, 30_000);

  it("--port abc → exit 2 with the rule", async () => {
    const res = await runCli(["start", "--port", "abc", "--db", ":memory:"]);
    expect(res.code).toBe(2);
    expect(res.output).toContain(
      'paysandbox: Invalid setting --port (PORT / --port): must be a whole number from 0 to 65535; got "abc"',
    );
  }, 30_000);
});
