/**
 * The path of a card payment (docs/architecture.md "The path of a card payment") is the path the code
 * takes: a real server on a real socket takes one card payment with a callback to a real receiver,
 * V8's precise coverage says which files of src/ ran (a function of theirs called, or a value of
 * theirs read) from the moment the request is sent to its answer, and then from there to the
 * webhook's answer recorded; each set must be exactly the files the page lists for that road (its
 * steps and the helpers they take values from). The sender thread runs in its own isolate: its file
 * is checked to be the one the sender starts.
 */
import { readFileSync } from "node:fs";
import { createServer as httpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Session } from "node:inspector/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer } from "../../src/compose.js";
import { defaultConfig } from "../../src/config.js";
import { closeDb, openDb } from "../../src/db/client.js";
import { enableGroupCommit } from "../../src/db/commit.js";
import { VirtualClock } from "../../src/platform/clock.js";
import { docPage, proseLines } from "../helpers/docs.js";
import { ROOT } from "../helpers/server.js";
import { cardPaymentBody } from "../http/payments.body.js";

const PAGE = "docs/architecture.md";
const SECTION = "## The path of a card payment";

/** Each road of the page's section: its numbered steps' files (the first `src/...` of each, in order) and its helpers. */
interface Road {
  steps: string[];
  helpers: string[];
}

function roads(): { request: Road; webhook: Road } {
  const lines = proseLines(docPage(PAGE)).map((l) => l.text);
  const start = lines.indexOf(SECTION);
  expect(start, `${PAGE} has the section "${SECTION}"`).toBeGreaterThanOrEqual(0);
  const end = lines.findIndex((l, i) => i > start && l.startsWith("## "));
  const found: Road[] = [];
  let mode: "steps" | "helpers" | undefined;
  for (const line of lines.slice(start + 1, end < 0 ? undefined : end)) {
    const road = found[found.length - 1];
    if (/^The (request|webhook)\b.*:$/.test(line)) {
      found.push({ steps: [], helpers: [] });
      mode = "steps";
    } else if (road && /^The helpers they take values from\b/.test(line)) mode = "helpers";
    else if (line.trim() === "" && mode === "helpers") mode = undefined;
    else if (road && mode === "steps" && /^\d+\.\s/.test(line)) {
      road.steps.push(/`(src\/[^`]+)`/.exec(line)?.[1] ?? `(no src/ file: ${line})`);
      continue;
    }
    if (road && mode === "helpers") for (const m of line.matchAll(/`(src\/[^`]+)`/g)) road.helpers.push(m[1] as string);
  }
  expect(found.length, `${PAGE}: two roads, "The request ...:" and "The webhook ...:"`).toBe(2);
  return { request: found[0] as Road, webhook: found[1] as Road };
}

const filesOf = (r: Road) => [...new Set([...r.steps, ...r.helpers])].sort();

let session: Session;
let stop: () => Promise<void>;
let pay: (n: number) => Promise<string>;
let release: () => void;
let attempts: () => number;

beforeAll(async () => {
  session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });

  // a receiver that answers only once released: the request's window ends before its webhook's answer
  let hold: Promise<void> = Promise.resolve();
  release = () => undefined;
  const receiver = httpServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on("end", () => void hold.then(() => res.end("ok")));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

  // the server as main.ts builds it: group commit on its database, served by @hono/node-server
  const db = openDb(":memory:");
  enableGroupCommit(db.$client);
  const server = createServer({ config: defaultConfig({}), clock: new VirtualClock(Date.UTC(2026, 0, 15), 1), db });
  const http = serve({ fetch: server.fetch, port: 0, hostname: "127.0.0.1" });
  await new Promise((resolve) => http.once("listening", resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const auth = await fetch(`${base}/api/v1/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" }),
  });
  const { token } = (await auth.json()) as { token: string };
  pay = async (n) => {
    const res = await fetch(`${base}/api/v1/payments/card`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: token },
      body: JSON.stringify(cardPaymentBody({ requestId: `road-${n}`, callbackUrl })),
    });
    return res.text();
  };
  // the attempts recorded and committed, read on the connection itself (better-sqlite3, no code of src/)
  const count = db.$client.prepare("SELECT count(*) FROM webhook_attempts").pluck();
  attempts = () => (db.$client.inTransaction ? -1 : (count.get() as number));
  const held = () => {
    hold = new Promise<void>((resolve) => {
      release = resolve;
    });
  };
  held();
  stop = async () => {
    release();
    await new Promise((resolve) => http.close(resolve));
    await new Promise((resolve) => receiver.close(resolve));
    await server.root.work.idle();
    await server.root.webhooks.close();
    closeDb(db);
    session.disconnect();
  };
  // warm: every file the path needs is loaded, its statements prepared and its webhooks answered
  for (let i = 0; i < 3; i++) await pay(i);
  release();
  await until(() => attempts() === 3);
  held();
});

afterAll(async () => {
  await stop?.();
});

/** Yields to the event loop (no timer, no code of src/) until `done` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100_000 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
}

/** The files of src/ with a function that ran since the last call (precise coverage resets its counts on each take). */
async function ran(): Promise<string[]> {
  const { result } = (await session.post("Profiler.takePreciseCoverage")) as {
    result: Array<{ url: string; functions: Array<{ ranges: Array<{ count: number }> }> }>;
  };
  const src = `${join(ROOT, "src")}/`;
  return result
    .filter((s) => s.url.includes(src) && s.functions.some((f) => (f.ranges[0]?.count ?? 0) > 0))
    .map((s) => `src/${s.url.slice(s.url.indexOf(src) + src.length)}`)
    .sort();
}

describe("the path of a card payment (docs/architecture.md)", () => {
  it("lists each road's steps, each file once, and the helpers they take values from", () => {
    const { request, webhook } = roads();
    for (const road of [request, webhook]) {
      expect(road.steps.length).toBeGreaterThan(5);
      expect(new Set(road.steps).size, `no file twice: ${road.steps.join(", ")}`).toBe(road.steps.length);
      expect(
        road.helpers.filter((h) => road.steps.includes(h)),
        "a step is not a helper too",
      ).toEqual([]);
    }
    // the measure: at most ~15 steps to the answer, ~8 from the commit to the answer recorded
    expect(request.steps.length).toBeLessThanOrEqual(15);
    expect(webhook.steps.length).toBeLessThanOrEqual(8);
  });

  it("a payment runs exactly the listed files: the request's, then, from its commit on, the webhook's", async () => {
    const { request, webhook } = roads();
    await ran(); // from here
    expect(JSON.parse(await pay(100))).toMatchObject({ transactionStatus: "SUCCEED" });
    const requestRan = await ran();
    release();
    await until(() => attempts() === 4);
    const webhookRan = await ran();

    const requestFiles = filesOf(request);
    const webhookFiles = filesOf(webhook);
    // until the answer: every file of the request's road, and of the webhook's only those that place
    // and send it at the commit (the answer leaves after that)
    expect(
      requestFiles.filter((f) => !requestRan.includes(f)),
      "listed for the request, not run",
    ).toEqual([]);
    expect(
      requestRan.filter((f) => !requestFiles.includes(f) && !webhookFiles.includes(f)),
      "run by the request, listed nowhere",
    ).toEqual([]);
    // the receiver's answer: only files of the webhook's road
    expect(
      webhookRan.filter((f) => !webhookFiles.includes(f)),
      "run for the answer, not listed for the webhook",
    ).toEqual([]);
    // and every file of the webhook's road runs on the way (the sender thread's in its own isolate)
    const worker = "src/webhooks/sender.worker.ts";
    expect(webhook.steps).toContain(worker);
    expect(readFileSync(join(ROOT, "src/webhooks/sender.ts"), "utf8")).toContain('source: "./sender.worker.ts"');
    const both = new Set([...requestRan, ...webhookRan, worker]);
    expect(
      webhookFiles.filter((f) => !both.has(f)),
      "listed for the webhook, not run",
    ).toEqual([]);
  });
});
