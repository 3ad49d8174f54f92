/**
 * The Node.js lines (docs/developing.md#nodejs-lines): the native SQLite addon outlives every
 * kind of use on the Node that runs this suite (CI runs it on each supported line), and an
 * unsupported Node is refused with one line.
 *
 * The crash this guards against (it ended with better-sqlite3 13, on Node-API, but a native addon
 * is checked on each line all the same): better-sqlite3 12 on Node >= 24.19 aborted the process
 * (`Assertion failed: (env) != nullptr` in node::RemoveEnvironmentCleanupHook) when a GC finalized
 * a prepared statement, so it showed up late and at random: in a closed sandbox, after a report's
 * worker thread ended, at exit. Here the server runs with a full GC forced every 100 ms while
 * sandboxes open, close (more than the 64 kept open), get deleted, and run reports in worker
 * threads, and the exit must be clean.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nodeLineVerdict, SUPPORTED_NODE_LINES } from "../../bin/node-lines.js";
import { call, ROOT, type RunningServer, startServer } from "../helpers/server.js";
import { cardPaymentBody } from "../http/payments.body.js";

/**
 * A full GC every 100 ms, from before the server's first line runs; on a loaded machine, where a GC
 * takes more than 25 ms of wall time, 4 GCs' time apart instead: GCs then stay about a fifth of
 * the server's time, as on a quiet machine, rather than crowding out everything else (at a load
 * average of 14 a fixed 100 ms kept the server collecting garbage nearly all the time, and the
 * test ran past 480 s).
 */
const FORCED_GC = [
  "--expose-gc",
  "--import=data:text/javascript,const gc=()=>{const t=performance.now();globalThis.gc();setTimeout(gc,Math.max(100,4*(performance.now()-t))).unref()};setTimeout(gc,100).unref()",
];
const CREDS = { merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" };
const NATIVE_ABORT = /Assertion failed|Segmentation fault|core dumped|FATAL ERROR/;

async function token(base: string): Promise<string> {
  const res = await call("POST", `${base}/api/v1/auth`, CREDS);
  expect(res.status).toBe(200);
  return res.body.token as string;
}

async function report(base: string, format: "CSV" | "XLS"): Promise<Buffer> {
  const res = await fetch(`${base}/api/v1/report-generator/s2s`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-merchant-key": CREDS.merchantKey,
      "x-merchant-secret": CREDS.merchantSecret,
    },
    body: JSON.stringify({ dateFrom: "2000-01-01", dateTo: "2099-12-31", format }),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

describe(`the native addon under forced GCs, on Node ${process.versions.node}`, () => {
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.stop("SIGKILL");
  });

  it("200 sandboxes opened, closed and deleted, reports in worker threads, 10 virtual minutes, a clean exit", async () => {
    server = await startServer({ nodeArgs: FORCED_GC });
    const root = server.url;
    const sandboxes: Array<{ id: string; base: string; tx: string }> = [];
    for (let i = 0; i < 200; i++) {
      const created = await call("POST", `${root}/_sandbox/sandboxes`, { name: `gc-${i}` });
      expect(created.status).toBe(201);
      const base = created.body.baseUrl as string;
      const paid = await call("POST", `${base}/api/v1/payments/card`, cardPaymentBody(), await token(base));
      expect(paid.status).toBe(200);
      sandboxes.push({ id: created.body.id as string, base, tx: paid.body.transactionId as string });
    }
    // more than the 64 kept open: the first ones were closed, and reopen on their next request
    for (const s of sandboxes.slice(0, 100)) {
      expect((await call("DELETE", `${root}/_sandbox/sandboxes/${s.id}`)).status).toBe(204);
    }
    const kept = sandboxes.slice(100);

    const auth = await token(root);
    for (let i = 0; i < 20; i++) {
      expect((await call("POST", `${root}/api/v1/payments/card`, cardPaymentBody(), auth)).status).toBe(200);
    }
    // the reports' worker threads open, read and close their own connections
    expect((await report(root, "CSV")).toString("utf8").split("\r\n").length).toBeGreaterThan(20);
    expect((await report(root, "XLS")).subarray(0, 2).toString("latin1")).toBe("PK");
    expect((await report(kept[0]!.base, "CSV")).toString("utf8")).toContain(kept[0]!.tx);
    expect((await report(kept[1]!.base, "XLS")).subarray(0, 2).toString("latin1")).toBe("PK");

    // ten minutes of virtual time, a minute at a time, at the root and in sandboxes that close and reopen
    for (let minute = 0; minute < 10; minute++) {
      expect((await call("POST", `${root}/_sandbox/clock/advance`, { by: "PT1M" })).status).toBe(200);
      for (let j = 0; j < 10; j++) {
        const s = kept[(minute * 37 + j * 11) % kept.length]!;
        expect((await call("POST", `${s.base}/_sandbox/clock/advance`, { by: "PT1M" })).status).toBe(200);
        const status = await call("GET", `${s.base}/api/v1/payments/card/status/${s.tx}`, undefined, await token(s.base));
        expect(status.body.transactionStatus).toBe("SUCCEED");
        // a new sandbox, and one deleted, every step
        const fresh = await call("POST", `${root}/_sandbox/sandboxes`, {});
        expect(fresh.status).toBe(201);
        expect((await call("DELETE", `${root}/_sandbox/sandboxes/${fresh.body.id}`)).status).toBe(204);
      }
    }

    const code = await server.stop("SIGTERM");
    expect(server.output()).not.toMatch(NATIVE_ABORT);
    expect(code).toBe(0);
    // a full GC every 100 ms: 46 s on 2 quiet cores, past 300 s at load 11-15 before the GCs kept to a fifth of the time
  }, 480_000);

  it("paysandbox run over the scenario library exits 0", () => {
    const files = readdirSync(join(ROOT, "scenarios"))
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => join("scenarios", f));
    expect(files.length).toBeGreaterThan(2);
    const run = spawnSync(process.execPath, [...FORCED_GC, "bin/paysandbox.js", "run", ...files], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 120_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(output).not.toMatch(NATIVE_ABORT);
    expect(output).toMatch(/\d+ passed, 0 failed/);
    expect(run.status).toBe(0);
  }, 150_000);
});

describe("the Node.js lines", () => {
  it("this Node is one of the supported lines", () => {
    expect(nodeLineVerdict(process.versions.node)).toBeUndefined();
    expect(SUPPORTED_NODE_LINES).toContain(Number(process.versions.node.split(".")[0]));
  });

  it("refuses Node 20 and the odd lines with one line naming the supported ones, warns on a newer line", () => {
    expect(nodeLineVerdict("20.20.2")).toEqual({
      level: "error",
      message: "paysandbox: Node.js 20.20.2 is not supported; use Node.js 22, 24 or 26 (the LTS lines)",
    });
    expect(nodeLineVerdict("18.20.8")?.level).toBe("error");
    expect(nodeLineVerdict("23.11.0")?.level).toBe("error");
    expect(nodeLineVerdict("25.9.0")?.level).toBe("error");
    expect(nodeLineVerdict("28.1.0")?.level).toBe("warning");
  });

  // .ci/run fetches Node 20 into .node/20; elsewhere this part says it did not run
  const node20 = join(ROOT, ".node/20/bin/node");
  it.skipIf(!existsSync(node20))("a real Node 20 is refused, by each way of starting, before anything loads", () => {
    for (const entry of [["bin/paysandbox.js", "start"], ["scripts/start.mjs"], ["dist/main.js", "start"]]) {
      const run = spawnSync(node20, entry, { cwd: ROOT, encoding: "utf8", timeout: 20_000 });
      expect(run.status, entry.join(" ")).toBe(1);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(
        /^paysandbox: Node\.js 20\.\d+\.\d+ is not supported; use Node\.js 22, 24 or 26 \(the LTS lines\)\n$/,
      );
    }
  });
});
