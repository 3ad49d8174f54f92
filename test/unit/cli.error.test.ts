/**
 * The command line says the rule of a bad setting, and `paysandbox listen` against a server it
 * cannot reach says it could not connect and gives up after a few tries (docs/events.md).
 */
import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { listenCommand } from "../../src/cli/listen.js";
import { ConfigError, parseConfig } from "../../src/config.js";

/** A port where nothing listens: one the OS handed out, then closed. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

describe("settings say their rule", () => {
  it.each([
    [["--port", "abc"], {}, 'Invalid setting --port (PORT / --port): must be a whole number from 0 to 65535; got "abc"'],
    [["--port", "70000"], {}, 'Invalid setting --port (PORT / --port): must be a whole number from 0 to 65535; got "70000"'],
    [[], { PORT: "80.5" }, 'Invalid setting PORT (PORT / --port): must be a whole number from 0 to 65535; got "80.5"'],
    [[], { SANDBOX_TIME_SCALE: "0" }, /SANDBOX_TIME_SCALE .*: must be a number above 0 and at most 1000000; got "0"$/],
    [[], { SANDBOX_MAX_RETRIES: "x" }, /: must be a whole number from 1 to 100; got "x"$/],
    [[], { SANDBOX_START_TIME: "tomorrow" }, /: expected an ISO 8601 instant such as "2026-01-15T12:00:00Z"/],
  ] as const)("%j %j", (argv, env, message) => {
    expect(() => parseConfig(argv, env)).toThrow(ConfigError);
    if (typeof message === "string") expect(() => parseConfig(argv, env)).toThrow(new ConfigError(message));
    else expect(() => parseConfig(argv, env)).toThrow(message);
  });
});

describe("paysandbox listen where nothing listens", () => {
  it("says it could not connect, tries a bounded number of times, and exits 1", async () => {
    const port = await closedPort();
    const err: string[] = [];
    const code = await listenCommand(
      { target: `http://127.0.0.1:${port}` },
      { out: () => undefined, err: (l) => err.push(l), retryMs: 1 },
    );
    expect(code).toBe(1);
    expect(err.join("\n")).not.toMatch(/connection lost|reconnecting/);
    expect(err).toHaveLength(5);
    expect(err[0]).toMatch(
      new RegExp(
        `^paysandbox listen: could not connect to http://127.0.0.1:${port} \\(ECONNREFUSED\\); trying again in 0\\.0 s \\(try 1 of 5\\)$`,
      ),
    );
    expect(err[4]).toMatch(
      new RegExp(
        `^paysandbox listen: could not connect to http://127.0.0.1:${port} \\(ECONNREFUSED\\) in 5 tries: is the server running there\\? \\(--target\\)$`,
      ),
    );
  });
});
