/**
 * `paysandbox run --target` with sandboxes side by side (docs/run.md, docs/parallel-suites.md), the built command
 * against a real started server: each file in a new sandbox of its own (its merchants, its clock,
 * its webhooks), files in parallel, the sandbox deleted after (or kept with `--keep`), the steps
 * never sent to the target nor at rest in its database files, and a server without the sandboxes
 * route refused clearly.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleDevice } from "../../src/platform/examples.js";
import { type RunningServer, runCli, startServer } from "../helpers/server.js";
import { BILLING, threeDsBody } from "../http/payments.body.js";

const TOKEN = "qa-t0ken";
const CARD = "4111111111111111";
/** Written only in the steps (names, a saved name): it must never reach the target's files. */
const MARKER = `steponly${randomBytes(6).toString("hex")}`;
const dir = mkdtempSync(join(tmpdir(), "paysandbox-run-sbx-"));

/**
 * A shop's file: its own merchant; a card tokenized and a monthly subscription on it, a 3DS payment
 * passed on the challenge page, then `months` months on, every charge reported to its receiver.
 * Its journal then holds exactly its own deliveries: the first charge, the 3DS payment's two
 * (CUSTOMER_VERIFICATION, SUCCEED), and one per month.
 */
function shopFile(shop: "a" | "b", months: number): string {
  const mid = `${shop}-mid`;
  const merchant = { merchantKey: `${shop}_key`, merchantSecret: `${shop}_secret`, mid, merchantId: 7001, accountId: 7002 };
  const card = { number: CARD, expMonth: "12", expYear: "2030", cvv: "737" };
  const dates = Array.from({ length: months }, (_, i) => `2026-0${4 + i}-01`);
  const doc = {
    name: `shop-${shop}`,
    merchants: [merchant],
    startTime: "2026-03-01T09:00:00Z",
    steps: [
      {
        name: `${MARKER} tokenize`,
        request: "POST /api/v1/payments/card/tokenize",
        body: { requestId: "${uuid}", merchantId: 7001, card, billingDetails: BILLING },
        expect: { status: 200 },
        save: `${MARKER}_tok`,
      },
      {
        name: "a monthly subscription",
        request: "POST /api/v1/payments/card/recurring",
        body: {
          requestId: "${uuid}",
          mid,
          cardToken: `\${${MARKER}_tok.token}`,
          plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: "2026-03-01" },
          order: { orderId: `plan-${shop}` },
          device: exampleDevice("paysandbox run"),
          callbackUrl: "${callbackUrl}",
          successRedirectUrl: "https://shop.example/ok",
          failureRedirectUrl: "https://shop.example/ko",
        },
        expect: { status: 200, body: { status: "ACTIVE", nextChargeDate: "2026-04-01" } },
        save: "sub",
      },
      {
        name: "a payment asking for 3DS",
        request: "POST /api/v1/payments/card",
        body: threeDsBody("${callbackUrl}", {
          requestId: "${uuid}",
          mid,
          card: { number: "4000000000003220" },
          order: { orderId: `order-${shop}` },
        }),
        expect: { body: { transactionStatus: "CUSTOMER_VERIFICATION" } },
        save: "p",
      },
      { name: `${MARKER} passes the challenge`, threeDS: { transactionId: "${p.transactionId}", outcome: "success" } },
      {
        request: "GET /api/v1/payments/card/status/${p.transactionId}",
        expect: { body: { transactionStatus: "SUCCEED" } },
      },
      { name: "its months pass", advance: `P${months}M` },
      {
        name: "its last charge was reported",
        webhook: {
          subscriptionId: "${sub.subscriptionId}",
          body: { chargeDate: dates.at(-1), transactionStatus: "SUCCEED" },
          delivery: "delivered",
        },
      },
      {
        name: "its journal holds its own deliveries only",
        request: "GET /_sandbox/webhooks?limit=1000",
        expect: { body: Array.from({ length: 3 + months }, () => ({ status: "delivered" })) },
      },
    ],
  };
  const file = join(dir, `shop-${shop}.json`);
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}

/** Every file under the server's database folder (the main file, its -wal, `<db>-sandboxes/`), read whole. */
function filesAtRest(dbPath: string): Array<{ path: string; bytes: Buffer }> {
  const out: Array<{ path: string; bytes: Buffer }> = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push({ path: p, bytes: readFileSync(p) });
    }
  };
  walk(dirname(dbPath));
  return out;
}

function expectNothingOfTheSteps(dbPath: string) {
  const files = filesAtRest(dbPath);
  expect(files.map((f) => f.path)).toContain(dbPath);
  for (const f of files) {
    expect(f.bytes.includes(CARD), `${CARD} in ${f.path}`).toBe(false);
    expect(f.bytes.includes(MARKER), `${MARKER} in ${f.path}`).toBe(false);
  }
}

const admin = { authorization: `Bearer ${TOKEN}` };
const getJson = async (url: string) => {
  const res = await fetch(url, { headers: admin });
  return { status: res.status, body: (await res.json()) as unknown };
};

describe("paysandbox run --target: a sandbox per file", () => {
  let server: RunningServer;
  let a: string;
  let b: string;
  beforeAll(async () => {
    server = await startServer({ args: ["--start-time", "2026-02-01T00:00:00Z"], env: { SANDBOX_ADMIN_TOKEN: TOKEN } });
    a = shopFile("a", 1);
    b = shopFile("b", 3);
  });
  afterAll(() => server?.stop());

  it("two files in parallel, each with its own merchant, clock and webhooks; deleted after, the steps never at rest", async () => {
    const r = await runCli(
      ["run", "--target", server.url, "--admin-token", TOKEN, "--parallel", "2", "--reporter", "json", a, b],
      {},
      60_000,
    );
    expect(r.code, r.output).toBe(0);
    const report = JSON.parse(r.output) as {
      passed: number;
      failed: number;
      files: Array<{ file: string; sandbox: { id: string; baseUrl: string; kept: boolean }; steps: Array<{ summary: string }> }>;
    };
    expect(report).toMatchObject({ passed: 16, failed: 0 });
    // the report keeps the files' order; each ran in a sandbox of its own
    expect(report.files.map((f) => f.file)).toEqual([a, b]);
    const [ra, rb] = report.files;
    expect(ra?.sandbox.id).toMatch(/^sbx_\w{20}$/);
    expect(rb?.sandbox.id).toMatch(/^sbx_\w{20}$/);
    expect(ra?.sandbox.id).not.toBe(rb?.sandbox.id);
    expect(ra?.sandbox).toMatchObject({ baseUrl: expect.stringMatching(/\/sandboxes\/sbx_\w{20}$/), kept: false });
    // each clock moved by its own file only, from the file's startTime (the root's is 2026-02-01)
    expect(ra?.steps[5]?.summary).toMatch(/^advance P1M → 2026-04-01T09:00/);
    expect(rb?.steps[5]?.summary).toMatch(/^advance P3M → 2026-06-01T09:00/);
    // the 3DS form was posted under the sandbox's base URL, shown at its path within the sandbox
    expect(ra?.steps[3]?.summary).toMatch(/^threeDS success: POST \/sandbox\/3ds\/tx_\w+ → 303 https:\/\/shop\.example\/ok/);

    // deleted after the run; the root saw nothing of them
    expect(await getJson(`${server.url}/_sandbox/sandboxes`)).toEqual({ status: 200, body: [] });
    expect(await getJson(`${server.url}/_sandbox/webhooks`)).toEqual({ status: 200, body: [] });
    expect((await getJson(`${server.url}/_sandbox/clock`)).body).toMatchObject({ now: expect.stringMatching(/^2026-02-01/) });
    expect((await getJson(`${ra?.sandbox.baseUrl}/_sandbox/clock`)).status).toBe(404);
    expectNothingOfTheSteps(server.dbPath);
  }, 90_000);

  it("prints each file's lines together, in the files' order, when the files run side by side", async () => {
    const r = await runCli(["run", "--target", server.url, "--admin-token", TOKEN, b, a], {}, 60_000);
    expect(r.code, r.output).toBe(0);
    const lines = r.output.trimEnd().split("\n");
    const header = (f: string) => lines.findIndex((l) => l.startsWith(`${f} (`));
    expect(header(b)).toBe(0);
    expect(header(a)).toBe(1 + 8);
    expect(lines.slice(1, 9).every((l) => l.startsWith("  pass  "))).toBe(true);
    expect(lines.slice(10, 18).every((l) => l.startsWith("  pass  "))).toBe(true);
    expect(lines.at(-1)).toBe("16 passed, 0 failed");
  }, 90_000);

  it("--keep keeps the file's sandbox and prints its baseUrl, which works; still nothing of the steps at rest", async () => {
    const r = await runCli(["run", "--target", server.url, "--admin-token", TOKEN, "--keep", b], {}, 60_000);
    expect(r.code, r.output).toBe(0);
    const kept = /^kept sandbox (sbx_\w{20}) at (\S+)$/m.exec(r.output);
    expect(kept, r.output).not.toBeNull();
    const [, id, baseUrl] = kept as unknown as [string, string, string];
    expect(baseUrl).toMatch(new RegExp(`/sandboxes/${id}$`));
    const list = (await getJson(`${server.url}/_sandbox/sandboxes`)).body as Array<{ id: string; name: string; storage: string }>;
    // kept, it is the server's default (a file here, docs/parallel-suites.md#storage); one deleted after the run is asked in memory
    expect(list.map((s) => [s.id, s.name, s.storage])).toEqual([[id, "shop-b", "file"]]);
    // the printed baseUrl is the sandbox: its clock, its journal, its merchant
    expect((await getJson(`${baseUrl}/_sandbox/clock`)).body).toMatchObject({ now: expect.stringMatching(/^2026-06-01T09:00/) });
    expect(((await getJson(`${baseUrl}/_sandbox/webhooks`)).body as unknown[]).length).toBe(6);
    const auth = await fetch(`${baseUrl}/api/v1/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ merchantKey: "b_key", merchantSecret: "b_secret" }),
    });
    expect(auth.status).toBe(200);
    // its database file is there now, and holds its scenario but nothing of the steps
    const files = filesAtRest(server.dbPath);
    expect(files.some((f) => f.path.includes(`-sandboxes/${id}.db`))).toBe(true);
    // what the steps' requests sent is there (the scan sees the sandbox's data), what only the steps hold is not
    expect(files.some((f) => f.bytes.includes("plan-b"))).toBe(true);
    expectNothingOfTheSteps(server.dbPath);

    expect((await fetch(`${server.url}/_sandbox/sandboxes/${id}`, { method: "DELETE", headers: admin })).status).toBe(204);
  }, 90_000);

  it("a server from before storage was a choice (it refuses the field) is asked again without it", async () => {
    const bodies: string[] = [];
    // as paysandbox 0.1 answers the field; everything else reaches the real server
    const older = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", async () => {
        if (req.method === "POST" && req.url === "/_sandbox/sandboxes") {
          bodies.push(body);
          if (body.includes('"storage"')) {
            res.writeHead(400, { "content-type": "application/json" });
            res.end('{"errorMessage":"Unknown field: storage","errors":[{"field":"storage","message":"unknown field"}]}');
            return;
          }
        }
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== "host")) as Record<string, string>;
        const answer = await fetch(`${server.url}${req.url}`, {
          method: req.method ?? "GET",
          headers,
          ...(body ? { body } : {}),
          redirect: "manual",
        });
        const back: Record<string, string> = {};
        answer.headers.forEach((value, key) => {
          back[key] = value;
        });
        res.writeHead(answer.status, back);
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
    await new Promise<void>((resolve) => older.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(older.address() as AddressInfo).port}`;
      const r = await runCli(["run", "--target", url, "--admin-token", TOKEN, a], {}, 60_000);
      expect(r.code, r.output).toBe(0);
      expect(bodies.map((b) => JSON.parse(b).storage)).toEqual(["memory", undefined]);
    } finally {
      await new Promise<void>((resolve) => older.close(() => resolve()));
    }
  }, 90_000);
});

describe("paysandbox run --target: a server without sandboxes", () => {
  let old: Server;
  let url: string;
  const seen: Array<{ method: string; path: string; body: string }> = [];
  beforeAll(async () => {
    // a paysandbox from before docs/parallel-suites.md: no POST /_sandbox/sandboxes
    old = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        seen.push({ method: req.method ?? "", path: req.url ?? "", body });
        res.writeHead(404, { "content-type": "application/json" }).end('{"errorMessage":"Not found"}');
      });
    });
    await new Promise<void>((resolve) => old.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(old.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => old.close(() => resolve())));

  it("fails each file with a clear message (exit 1), having sent only the scenario part", async () => {
    const file = shopFile("a", 1);
    const r = await runCli(["run", "--target", url, file], {}, 30_000);
    expect(r.code).toBe(1);
    expect(r.output).toContain(
      `${file}: could not run: ${url} has no POST /_sandbox/sandboxes (it answered 404): a server from before sandboxes side by side (docs/parallel-suites.md); upgrade it, or run without --target`,
    );
    expect(r.output.trimEnd().split("\n").at(-1)).toBe("0 passed, 0 failed");
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(["POST /_sandbox/sandboxes"]);
    const sent = JSON.parse(seen[0]?.body ?? "{}");
    expect(sent).toMatchObject({
      name: "shop-a",
      startTime: "2026-03-01T09:00:00Z",
      // deleted after the run, it is asked in memory (docs/parallel-suites.md#storage)
      storage: "memory",
      scenario: { name: "shop-a", merchants: [{ merchantKey: "a_key" }] },
    });
    expect(sent.scenario.steps).toBeUndefined();
    expect(seen[0]?.body).not.toContain(CARD);
    expect(seen[0]?.body).not.toContain(MARKER);
  });
});
