/**
 * `paysandbox listen` (docs/events.md), the built command against the real server: `--forward-to`
 * re-posts each webhook delivery with its exact body and headers, so the signature verifies with
 * the merchant's secret (docs/webhooks.md); it reconnects by itself across a restart of the
 * server and resumes where it was (every event once, in order); `--count` ends it.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type Receiver, startReceiver } from "../helpers/receiver.js";
import { ROOT, type RunningServer, runCli, startServer, tempDbPath } from "../helpers/server.js";
import { cardPaymentBody } from "../http/payments.body.js";

let server: RunningServer | undefined;
let receiver: Receiver | undefined;
let cli: ChildProcess | undefined;
afterEach(async () => {
  cli?.kill("SIGKILL");
  await server?.stop("SIGKILL");
  await receiver?.close();
  cli = undefined;
  server = undefined;
  receiver = undefined;
});

const CREDS = { merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" };

async function post(url: string, body: unknown, auth?: string) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> };
}

async function pay(base: string, over: Record<string, unknown> = {}): Promise<string> {
  const token = (await post(`${base}/api/v1/auth`, CREDS)).body.token as string;
  const res = await post(`${base}/api/v1/payments/card`, cardPaymentBody(over), token);
  expect(res.status).toBe(200);
  return res.body.transactionId as string;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** The listen command as a child process; its stdout lines as they come. */
function startListen(args: string[]) {
  const proc = spawn(process.execPath, ["bin/paysandbox.js", "listen", ...args], { cwd: ROOT });
  cli = proc;
  const lines: string[] = [];
  let err = "";
  let pending = "";
  const waiters: Array<() => void> = [];
  proc.stdout.on("data", (d: Buffer) => {
    pending += d.toString();
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts);
    for (const w of waiters.splice(0)) w();
  });
  proc.stderr.on("data", (d: Buffer) => {
    err += d.toString();
    for (const w of waiters.splice(0)) w();
  });
  const until = async (ok: () => boolean, what: string, timeoutMs = 20_000) => {
    const t0 = performance.now();
    while (!ok()) {
      if (performance.now() - t0 > timeoutMs)
        throw new Error(`waited for ${what}; stdout:\n${lines.join("\n")}\nstderr:\n${err}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  };
  return { proc, lines, stderr: () => err, until };
}

/** docs/webhooks.md: Base64(HMAC-SHA256(merchantSecret, the signed fields joined by |)). */
function verifies(raw: string, header: string | undefined, fields: string[], secret: string): boolean {
  const body = JSON.parse(raw) as Record<string, unknown>;
  const message = fields
    .map((f) => (body[f] == null ? "" : typeof body[f] === "string" ? body[f] : JSON.stringify(body[f])))
    .join("|");
  const expected = createHmac("sha256", secret).update(message, "utf8").digest();
  const given = Buffer.from(header ?? "", "base64");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

describe("paysandbox listen", () => {
  it("--forward-to re-posts a signed webhook that verifies with the merchant secret, and prints the answer", async () => {
    server = await startServer();
    receiver = await startReceiver();
    receiver.respondWith(202);
    const l = startListen(["--target", server.url, "--forward-to", `${receiver.url}/local/hook?app=1`, "--json"]);
    await l.until(() => l.stderr().includes("listening to"), "the stream");
    // a callbackUrl the sandbox cannot reach: the app only gets the webhook through listen
    const tx = await pay(server.url, { callbackUrl: "http://127.0.0.1:9/unreachable" });
    const [hook] = await receiver.waitFor(1, 20_000);
    expect(hook?.path).toBe("/local/hook");
    expect(hook?.query.get("app")).toBe("1");
    expect(hook?.query.get("paymentMethod")).toBe("card");
    expect(hook?.headers["x-sandbox-attempt"]).toBe("1");
    expect(hook?.headers["content-type"]).toBe("application/json");
    expect(hook?.body).toMatchObject({ transactionId: tx, transactionStatus: "SUCCEED" });
    expect(
      verifies(
        hook?.raw ?? "",
        hook?.headers["x-checksum"] as string,
        ["mid", "orderAmount", "orderCurrency", "transactionId"],
        CREDS.merchantSecret,
      ),
    ).toBe(true);

    // exactly what the sandbox sent: the journal's headers and body
    const journal = (await (await fetch(`${server.url}/_sandbox/webhooks?transactionId=${tx}`)).json()) as Array<{
      id: string;
      headers: Record<string, string>;
      body: unknown;
    }>;
    expect(hook?.headers["x-checksum"]).toBe(journal[0]?.headers["X-Checksum"]);
    expect(hook?.headers["x-sandbox-delivery-id"]).toBe(journal[0]?.id);
    expect(hook?.raw).toBe(JSON.stringify(journal[0]?.body));

    await l.until(() => l.lines.some((x) => x.includes('"forwarded"')), "the forward's answer");
    const printed = l.lines.map((x) => JSON.parse(x) as Record<string, unknown>);
    expect(printed[0]).toMatchObject({ event: "transaction", data: { transactionId: tx, status: "SUCCEED" } });
    expect(printed.find((p) => p.event === "webhook")).toMatchObject({ data: { transactionId: tx, attempt: 1 } });
    expect(printed.find((p) => p.forwarded)).toMatchObject({
      forwarded: { deliveryId: journal[0]?.id, status: 202, body: "ok" },
    });
  }, 60_000);

  it("reconnects by itself across a restart of the server and resumes where it was", async () => {
    const dbPath = tempDbPath();
    const port = await freePort();
    const args = ["--port", String(port)];
    server = await startServer({ dbPath, args });
    const l = startListen(["--target", server.url, "--types", "transaction"]);
    await l.until(() => l.stderr().includes("listening to"), "the stream");
    const before = [await pay(server.url), await pay(server.url), await pay(server.url)];
    await l.until(() => l.lines.length >= 3, "3 events");

    await server.stop("SIGKILL");
    await l.until(() => /connection lost|ECONNREFUSED/.test(l.stderr()), "the drop");
    // meanwhile, nobody is listening: these are read from the database once it is back
    server = await startServer({ dbPath, args });
    const after = [await pay(server.url), await pay(server.url)];
    await l.until(() => l.lines.length >= 5, "5 events");
    expect(l.stderr()).toContain("connected again");

    const ids = l.lines.map((x) => Number(/^#(\d+)/.exec(x)?.[1]));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(5);
    const txs = l.lines.map((x) => /(tx_\S+)/.exec(x)?.[1]);
    expect(txs).toEqual([...before, ...after]);
    expect(l.lines[0]).toMatch(/^#\d+\s+\S+ \S+Z\s+transaction\s+SUCCEED\s+tx_\S+ card_payment sandbox-mid-001$/);
  }, 60_000);

  it("--count ends it; a refused stream exits 1; a bad flag exits 2", async () => {
    server = await startServer({ args: ["--admin-token", "sekret"] });
    await post(`${server.url}/_sandbox/clock/advance`, { by: "PT1M" }, "Bearer sekret");
    await post(`${server.url}/_sandbox/clock/advance`, { by: "PT1M" }, "Bearer sekret");
    const ok = await runCli(["listen", "--target", server.url, "--since", "0", "--count", "2", "--admin-token", "sekret"]);
    expect(ok.code).toBe(0);
    expect(ok.output.match(/clock {8}moved from/g)).toHaveLength(2);
    const refused = await runCli(["listen", "--target", server.url]);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain("401");
    expect((await runCli(["listen", "--types", "nope"])).code).toBe(2);
    expect((await runCli(["listen", "--count", "0"])).code).toBe(2);
  }, 60_000);
});
