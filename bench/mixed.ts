/**
 * A mixed workload against one real built server (WAL SQLite file), 32 connections, each cycling
 * through four requests, so a quarter of each:
 * - a card payment with a callbackUrl (4111…, no 3DS: SUCCEED and one signed webhook);
 * - a card payment asking for 3DS (CUSTOMER_VERIFICATION + challengeUrl, and its webhook);
 * - a status read, GET /api/v1/payments/card/status/{id}, of the payments made before the run;
 * - a refund, POST /api/v1/refunds/card, 0.01 of one of those SUCCEED payments (round robin over
 *   PARENTS of 100,000.00 each, so every refund fits), a fresh requestId each, with a callbackUrl.
 * The payments to read and refund are made first (and one of each kind is checked for the answer it
 * should get), then a warm-up run of the mix is discarded, then the measured run.
 *
 * No target: overall req/s, p50, p99 (wrk, or autocannon in whole ms: see bench/lib.ts), server CPU µs per request, and the
 * webhooks the local receiver got per second; errors and non-2xx must be 0 (else exit 1).
 * Run with `npx tsx bench/mixed.ts` after `node scripts/build.mjs` (BENCH_DURATION=s, default 10).
 * Prints one JSON line: {"bench":"mixed","rps","p50","p99","cpuUsPerReq","errors","non2xx",...}.
 */
import { exampleDevice } from "../src/platform/examples.js";
import { emit, figures, loadMixed, merchantToken, paymentBody, startCountingReceiver, startSandbox } from "./lib.js";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Math.min(3, DURATION);
const CONNECTIONS = 32;
const PARENTS = 1_000;
const THREE_DS = 200;

/** A card payment body asking for 3DS, with the redirect URLs and device fields 3DS requires. */
function threeDsBody(requestId: string, callbackUrl: string): string {
  const body = JSON.parse(paymentBody(requestId, callbackUrl)) as Record<string, unknown> & { card: Record<string, unknown> };
  body.card.requestThreeDSecure = true;
  body.successRedirectUrl = "https://shop.example/ok";
  body.failureRedirectUrl = "https://shop.example/ko";
  body.device = exampleDevice("autocannon", "3ds");
  return JSON.stringify(body);
}

function refundBody(requestId: string, transactionId: string, callbackUrl: string): string {
  return JSON.stringify({
    requestId,
    mid: "sandbox-mid-001",
    transactionId,
    amount: "0.01",
    reason: "bench",
    callbackUrl,
  });
}

const receiver = await startCountingReceiver();
const sandbox = await startSandbox();
let broken = false;
try {
  const token = await merchantToken(sandbox.url);
  const call = async (method: "GET" | "POST", path: string, body?: string) => {
    const res = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: { authorization: token, ...(body ? { "content-type": "application/json" } : {}) },
      ...(body ? { body } : {}),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const expect = (what: string, json: Record<string, unknown>, status: string, field?: string) => {
    if (json.transactionStatus !== status || (field && typeof json[field] !== "string")) {
      throw new Error(`${what}: expected ${status}${field ? ` and ${field}` : ""}, got ${JSON.stringify(json)}`);
    }
  };

  // the payments to read and refund (big enough for every 0.01 refund), 16 at a time
  const parents: string[] = [];
  for (let i = 0; i < PARENTS; i += 16) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(16, PARENTS - i) }, async (_, k) => {
        const body = JSON.parse(paymentBody(`parent-${i + k}`, receiver.url)) as Record<string, unknown>;
        body.amount = "100000.00";
        const json = await call("POST", "/api/v1/payments/card", JSON.stringify(body));
        expect("payment", json, "SUCCEED");
        return json.transactionId as string;
      }),
    );
    parents.push(...batch);
  }
  const challenged: string[] = [];
  for (let i = 0; i < THREE_DS; i++) {
    const json = await call("POST", "/api/v1/payments/card", threeDsBody(`tds-${i}`, receiver.url));
    expect("3DS payment", json, "CUSTOMER_VERIFICATION", "challengeUrl");
    challenged.push(json.transactionId as string);
  }
  const readable = [...parents, ...challenged];
  expect("status read", await call("GET", `/api/v1/payments/card/status/${readable[PARENTS]}`), "CUSTOMER_VERIFICATION");
  expect(
    "refund",
    await call("POST", "/api/v1/refunds/card", refundBody("rf-check", parents[0] as string, receiver.url)),
    "PENDING",
    "refundId",
  );

  let run = 0;
  const mix = (duration: number) => {
    const prefix = `mix-${++run}-`;
    const headers = { authorization: token };
    return loadMixed({
      url: sandbox.url,
      requests: [
        {
          method: "POST",
          path: "/api/v1/payments/card",
          headers,
          bodyFor: (i) => paymentBody(`${prefix}pay-${i}`, receiver.url),
        },
        {
          method: "POST",
          path: "/api/v1/payments/card",
          headers,
          bodyFor: (i) => threeDsBody(`${prefix}tds-${i}`, receiver.url),
        },
        {
          method: "GET",
          path: "/api/v1/payments/card/status/",
          headers,
          cycle: readable,
          pathFor: (_i, id) => `/api/v1/payments/card/status/${id}`,
        },
        {
          method: "POST",
          path: "/api/v1/refunds/card",
          headers,
          cycle: parents,
          bodyFor: (i, parent) => refundBody(`${prefix}rf-${i}`, parent, receiver.url),
        },
      ],
      connections: CONNECTIONS,
      duration,
      pid: sandbox.pid,
    });
  };

  await mix(WARMUP);
  const before = await receiver.received();
  const m = await mix(DURATION);
  const webhooksPerSec = Math.round(((await receiver.received()) - before) / DURATION);
  if (m.errors > 0 || m.non2xx > 0) broken = true;
  console.log(
    `mixed (card payment, 3DS payment, status read, refund; a quarter each; ${CONNECTIONS} connections): ` +
      `${m.rps} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ${m.cpuUsPerReq ?? "?"} µs server CPU/req, ` +
      `${m.errors} errors, ${m.non2xx} non-2xx, ${m.total} requests; webhooks received ${webhooksPerSec}/s`,
  );
  emit("mixed", {
    ...figures(m),
    total: m.total,
    webhooksPerSec,
    connections: CONNECTIONS,
    duration: DURATION,
  });
} finally {
  await sandbox.stop();
  receiver.stop();
}

if (broken) {
  console.error("some requests failed (errors or non-2xx): the numbers above are not valid");
  process.exitCode = 1;
}
