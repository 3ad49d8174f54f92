import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config.js";

describe("settings", () => {
  it("has the docs/configuration.md defaults", () => {
    const c = parseConfig([], {});
    expect(c).toMatchObject({
      port: 8080,
      host: "0.0.0.0",
      db: "./data/sandbox.db",
      scenarios: [],
      timeScale: 1,
      logLevel: "info",
      tokenTtlDays: 90,
      maxRetries: 3,
      headerTimeoutSeconds: 30,
      requestTimeoutSeconds: 120,
      snapshotKeepMb: 64,
    });
    expect(c.publicUrl).toBeUndefined();
    expect(c.adminToken).toBeUndefined();
    expect(c.startTime).toBeUndefined();
  });

  it("reads env vars, and flags win", () => {
    const c = parseConfig(["--port", "9000", "--scenario", "a.yaml", "--scenario", "b.json"], {
      PORT: "7000",
      HOST: "127.0.0.1",
      SANDBOX_SCENARIO: "x.yaml,y.yaml",
      SANDBOX_TIME_SCALE: "3600",
      SANDBOX_START_TIME: "2027-01-01T00:00:00Z",
      SANDBOX_PUBLIC_URL: "https://sandbox.example:8443",
      SANDBOX_ADMIN_TOKEN: "s3cret",
    });
    expect(c).toMatchObject({
      port: 9000,
      host: "127.0.0.1",
      scenarios: ["a.yaml", "b.json"],
      timeScale: 3600,
      startTime: Date.UTC(2027, 0, 1),
      publicUrl: "https://sandbox.example:8443",
      adminToken: "s3cret",
    });
    expect(parseConfig([], { SANDBOX_SCENARIO: "x.yaml, y.yaml" }).scenarios).toEqual(["x.yaml", "y.yaml"]);
  });

  it("sandboxes are files by default (none said); memory when set", () => {
    expect(parseConfig([], {}).storage).toBeUndefined();
    expect(parseConfig(["--storage", "memory"], {}).storage).toBe("memory");
    expect(parseConfig([], { SANDBOX_STORAGE: "memory", SANDBOX_DB: ":memory:" }).storage).toBe("memory");
  });

  it.each([
    [["--port", "70000"], {}, /--port/],
    [[], { PORT: "eighty" }, /PORT/],
    [[], { SANDBOX_TIME_SCALE: "0" }, /SANDBOX_TIME_SCALE/],
    [[], { SANDBOX_TIME_SCALE: "-2" }, /SANDBOX_TIME_SCALE/],
    [[], { SANDBOX_START_TIME: "last tuesday" }, /SANDBOX_START_TIME/],
    [[], { SANDBOX_PUBLIC_URL: "not a url" }, /SANDBOX_PUBLIC_URL/],
    [[], { LOG_LEVEL: "loud" }, /LOG_LEVEL/],
    [[], { SANDBOX_MAX_RETRIES: "0" }, /SANDBOX_MAX_RETRIES/],
    [[], { SANDBOX_SNAPSHOT_KEEP_MB: "-1" }, /SANDBOX_SNAPSHOT_KEEP_MB/],
    [["--snapshot-keep-mb", "lots"], {}, /--snapshot-keep-mb/],
    [[], { SANDBOX_TOKEN_TTL_DAYS: "1.5" }, /SANDBOX_TOKEN_TTL_DAYS/],
    [[], { SANDBOX_STORAGE: "disk" }, /SANDBOX_STORAGE.*expected file or memory/],
    [["--storage", "file", "--db", ":memory:"], {}, /--storage .*file needs a database file/],
    [[], { SANDBOX_STORAGE: "file", SANDBOX_DB: ":memory:" }, /SANDBOX_STORAGE .*file needs a database file/],
    [["--nope"], {}, /nope/],
    [[], { SANDBOX_HEADER_TIMEOUT_SECONDS: "0" }, /SANDBOX_HEADER_TIMEOUT_SECONDS/],
    [["--request-timeout-seconds", "2.5"], {}, /--request-timeout-seconds/],
    [
      [],
      { SANDBOX_HEADER_TIMEOUT_SECONDS: "200" },
      /SANDBOX_HEADER_TIMEOUT_SECONDS.*at most the request timeout \(SANDBOX_REQUEST_TIMEOUT_SECONDS, 120\)/,
    ],
  ] as const)("refuses %j %j naming the setting", (argv, env, name) => {
    expect(() => parseConfig(argv, env)).toThrow(ConfigError);
    expect(() => parseConfig(argv, env)).toThrow(name);
  });
});
