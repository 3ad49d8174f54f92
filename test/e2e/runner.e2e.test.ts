/**
 * The built `paysandbox` command (bin/paysandbox.js over dist/, as `npx paysandbox` runs it):
 * --help and --version, usage errors, `run` on the scenario library, `run --target` against a
 * real started server, and `schema` (docs/run.md).
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import pkg from "../../package.json" with { type: "json" };
import { ROOT, type RunningServer, runCli, startServer, tempDbPath } from "../helpers/server.js";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

const LIBRARY = readdirSync(join(ROOT, "scenarios"))
  .filter((f) => f.endsWith(".yaml"))
  .map((f) => `scenarios/${f}`);
const lastLine = (out: string) => out.trimEnd().split("\n").at(-1);

describe("the paysandbox command line", () => {
  it.each([
    [
      ["--help"],
      /^Usage: paysandbox \[options\] \[command\]\n[\s\S]*Commands:\n {2}start \[options\][\s\S]* {2}run \[options\] <files\.\.\.>[\s\S]* {2}schema/,
    ],
    [["help", "run"], /^Usage: paysandbox run \[options\] <files\.\.\.>/],
    [["start", "--help"], /^Usage: paysandbox start \[options\][\s\S]*--port <value>[\s\S]*\[env PORT\][\s\S]*--scenario <file>/],
    [
      ["run", "--help"],
      /^Usage: paysandbox run \[options\] <files\.\.\.>[\s\S]*--target <url>[\s\S]*--keep[\s\S]*--parallel <n>[\s\S]*--junit <file>[\s\S]*--reporter <name>/,
    ],
    [["schema", "--help"], /^Usage: paysandbox schema \[options\]/],
    [
      ["snapshot", "--help"],
      /^Usage: paysandbox snapshot \[options\] \[command\][\s\S]* {2}save \[options\][\s\S]* {2}load \[options\] <file>/,
    ],
    [
      ["snapshot", "save", "--help"],
      /^Usage: paysandbox snapshot save \[options\][\s\S]*--target <url>[\s\S]*--sandbox <id>[\s\S]*--out <file>/,
    ],
    [
      ["snapshot", "load", "--help"],
      /^Usage: paysandbox snapshot load \[options\] <file>[\s\S]*--target <url>[\s\S]*--name <name>[\s\S]*--ttl <duration>/,
    ],
    [["--version"], new RegExp(`^${pkg.version.replace(/\./g, "\\.")}\n$`)],
  ])("%j answers and exits 0", async (args, output) => {
    const r = await runCli(args);
    expect(r.output).toMatch(output);
    expect(r.code).toBe(0);
  });

  it.each([
    [["--bogus"], /error: unknown option '--bogus'\n\nUsage: paysandbox start \[options\]/],
    [["run", "--colour", "x.yaml"], /error: unknown option '--colour'\n\nUsage: paysandbox run/],
    [["run"], /error: missing required argument 'files'\n\nUsage: paysandbox run/],
    [
      ["run", "--reporter", "tap", "x.yaml"],
      /error: option '--reporter <name>' argument 'tap' is invalid. Allowed choices are pretty, json./,
    ],
    [["frobnicate"], /error: unknown command 'frobnicate'\n\nUsage: paysandbox \[options\] \[command\]/],
    [["snapshot", "load"], /error: missing required argument 'file'\n\nUsage: paysandbox snapshot load/],
    [["snapshot", "frob"], /error: unknown command 'frob'\n\nUsage: paysandbox snapshot/],
    [
      ["snapshot", "save", "--out", "x", "--sandbox", "nope"],
      /paysandbox snapshot save: --sandbox: expected a sandbox id \(sbx_\.\.\.\), got "nope"/,
    ],
  ])("%j prints the usage and exits 2", async (args, output) => {
    const r = await runCli(args);
    expect(r.output).toMatch(output);
    expect(r.code).toBe(2);
  });

  it("run: the scenario library passes, every file in one process", async () => {
    expect(LIBRARY.length).toBeGreaterThanOrEqual(4);
    const r = await runCli(["run", ...LIBRARY], {}, 60_000);
    expect(r.output).not.toMatch(/FAIL/);
    expect(lastLine(r.output)).toMatch(/^\d+ passed, 0 failed$/);
    for (const f of LIBRARY) expect(r.output).toContain(`${f} (`);
    expect(r.code).toBe(0);
  }, 90_000);

  it("run: a missing file exits 2 naming it, and nothing runs", async () => {
    const r = await runCli(["run", "scenarios/test-cards.yaml", "scenarios/nope.yaml"]);
    expect(r.code).toBe(2);
    expect(r.output.trim()).toBe("paysandbox run: scenarios/nope.yaml: no such file");
  });

  it("run --target: the library against a real started server, with its admin token", async () => {
    server = await startServer({ args: ["--start-time", "2026-02-01T00:00:00Z"], env: { SANDBOX_ADMIN_TOKEN: "qa-t0ken" } });
    const junit = join(tempDbPath(), "..", "junit.xml");
    const r = await runCli(
      ["run", "--target", server.url, "--admin-token", "qa-t0ken", "--junit", junit, ...LIBRARY],
      {},
      60_000,
    );
    expect(r.output).toContain(`scenarios/three-ds.yaml (three-ds, ${server.url})`);
    expect(lastLine(r.output)).toMatch(/^\d+ passed, 0 failed$/);
    expect(r.code).toBe(0);
    const xml = readFileSync(junit, "utf8");
    expect(xml.match(/<testsuite /g)).toHaveLength(LIBRARY.length);
    expect(xml).not.toMatch(/<failure|<error/);
    expect(xml.match(/<property name="sandbox" value="http:\/\/localhost:\d+\/sandboxes\/sbx_\w{20}"\/>/g)).toHaveLength(
      LIBRARY.length,
    );
    // each file ran in a sandbox of its own, deleted after: the root's clock never moved to their startTime
    const admin = { headers: { authorization: "Bearer qa-t0ken" } };
    const clock = await fetch(`${server.url}/_sandbox/clock`, admin);
    expect(((await clock.json()) as { now: string }).now).toMatch(/^2026-02-01/);
    expect(await (await fetch(`${server.url}/_sandbox/sandboxes`, admin)).json()).toEqual([]);
  }, 90_000);

  it("run --target: a refused admin token fails the file (exit 1), so does a wrong expectation (with its JUnit failure)", async () => {
    server = await startServer({ env: { SANDBOX_ADMIN_TOKEN: "qa-t0ken" } });
    const refused = await runCli(
      ["run", "--target", server.url, "scenarios/test-cards.yaml"],
      { SANDBOX_ADMIN_TOKEN: "" },
      30_000,
    );
    expect(refused.output).toMatch(
      /could not run: POST http:\/\/127\.0\.0\.1:\d+\/_sandbox\/sandboxes answered 401: Admin token required: Authorization: Bearer <SANDBOX_ADMIN_TOKEN> \(give its SANDBOX_ADMIN_TOKEN with --admin-token\)/,
    );
    expect(lastLine(refused.output)).toBe("0 passed, 0 failed");
    expect(refused.code).toBe(1);

    const dir = join(tempDbPath(), "..");
    const file = join(dir, "wrong.yaml");
    writeFileSync(
      file,
      "name: wrong\nsteps:\n  - name: health is teapot\n    request: GET /_sandbox/health\n    expect: { status: 418 }\n",
    );
    const junit = join(dir, "wrong.xml");
    const wrong = await runCli(
      ["run", "--target", server.url, "--junit", junit, file],
      { SANDBOX_ADMIN_TOKEN: "qa-t0ken" },
      30_000,
    );
    expect(wrong.output).toContain("  FAIL  [0] health is teapot  GET /_sandbox/health → 200");
    expect(wrong.output).toContain("        status: expected 418, got 200");
    expect(lastLine(wrong.output)).toBe("0 passed, 1 failed");
    expect(wrong.code).toBe(1);
    expect(readFileSync(junit, "utf8")).toContain('<failure message="status: expected 418, got 200" type="StepFailure">');
  }, 90_000);

  it("schema prints the JSON Schema of scenario files; scenarios/scenario.schema.json is that output", async () => {
    const r = await runCli(["schema"]);
    expect(r.code).toBe(0);
    const schema = JSON.parse(r.output);
    expect(schema).toMatchObject({ $schema: "http://json-schema.org/draft-07/schema#", type: "object", required: ["name"] });
    expect(Object.keys(schema.properties)).toEqual([
      "name",
      "description",
      "merchants",
      "fxRates",
      "cards",
      "rules",
      "startTime",
      "snapshot",
      "steps",
    ]);
    expect(schema.properties.steps.items.properties.request).toMatchObject({ type: "string" });
    expect(readFileSync(join(ROOT, "scenarios/scenario.schema.json"), "utf8")).toBe(r.output);
    for (const f of LIBRARY) {
      expect(readFileSync(join(ROOT, f), "utf8").split("\n")[0]).toBe("# yaml-language-server: $schema=./scenario.schema.json");
    }
  });
});
