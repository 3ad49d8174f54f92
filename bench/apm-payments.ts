/**
 * APM pay-ins per second: POST /api/v1/payments/apm, SMART_BANK_TRANSFER with every
 * field present (forwarded: PROCESSING, actionType NONE, a signed APM callback to a local receiver),
 * a fresh requestId and its checksum per request; beside it, in the same run, the card payment of
 * bench/card-payments.ts and the bare floor (@hono/node-server + one better-sqlite3 INSERT per POST).
 * Then the hosted payment page: GET /sandbox/hpp/{id} at one connection, whose latency bounds the
 * server time of a render.
 *
 * Targets: APM pay-in req/s ≥ the card payment's in the same run; HPP p50 ≤ 5 ms.
 * Run with `npx tsx bench/apm-payments.ts` after `node scripts/build.mjs` (BENCH_DURATION=s).
 * Prints JSON lines: {"bench":"apm-payin",...} and {"bench":"hpp-page",...}.
 */
import { createHmac } from "node:crypto";
import { APM_BILLING, exampleDevice } from "../src/platform/examples.js";
import {
  emit,
  load,
  loaderFor,
  merchantToken,
  paymentBody,
  paymentLoad,
  startBareFloor,
  startCountingReceiver,
  startSandbox,
} from "./lib.js";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Math.min(3, DURATION);
const CONNECTIONS = 32;
const SECRET = "sandbox_merchant_secret";

function apmBody(requestId: string, callbackUrl: string, payload?: Record<string, string>): string {
  return JSON.stringify({
    requestId,
    accountId: "2001",
    amount: "20.50",
    currency: "USD",
    apmPayload: {
      paymentMethod: "SMART_BANK_TRANSFER",
      paymentType: "BANK_TRANSFER",
      ...(payload ?? { accountNumber: "000123456789", bankName: "Bench Bank", accountHolderName: "Bench Mark" }),
    },
    order: { orderId: requestId },
    billingDetails: APM_BILLING,
    device: exampleDevice("autocannon"),
    callbackUrl,
    successRedirectUrl: "https://shop.example/ok",
    failureRedirectUrl: "https://shop.example/ko",
    checksum: createHmac("sha256", SECRET).update(`2001|20.50|USD|${requestId}`).digest("base64"),
  });
}

const receiver = await startCountingReceiver();
const floor = await startBareFloor("insert");
const sandbox = await startSandbox();
try {
  const token = await merchantToken(sandbox.url);
  let run = 0;
  // The APM body's checksum (an HMAC of its requestId) is no plain template, so wrk cannot send it:
  // the card payments and the floor it is compared with then run on the same client as it.
  const loader = loaderFor([{ path: "/api/v1/payments/apm", bodyFor: (i) => apmBody(`x-${i}`, receiver.url) }]);
  const post = (path: string, make: (requestId: string) => string, duration: number) => {
    const prefix = `bench-${++run}-`;
    return load({
      url: sandbox.url,
      method: "POST",
      path,
      headers: { authorization: token },
      bodyFor: (i) => make(`${prefix}${i}`),
      loader,
      connections: CONNECTIONS,
      duration,
      pid: sandbox.pid,
    });
  };
  const apm = (d: number) => post("/api/v1/payments/apm", (id) => apmBody(id, receiver.url), d);
  const cards = (d: number) => post("/api/v1/payments/card", (id) => paymentBody(id, receiver.url), d);
  const inserts = (duration: number) =>
    paymentLoad(floor, { callbackUrl: receiver.url, loader, connections: CONNECTIONS, duration });

  await inserts(WARMUP);
  const f = await inserts(DURATION);
  await cards(WARMUP);
  const c = await cards(DURATION);
  await apm(WARMUP);
  const a = await apm(DURATION);
  const vsCard = c.rps > 0 ? a.rps / c.rps : 0;
  const pass = vsCard >= 1 && a.errors === 0 && a.non2xx === 0;
  console.log(`floor (bare hono + 1 INSERT): ${f.rps} req/s`);
  console.log(`card payments: ${c.rps} req/s, p50 ${c.p50} ms, p99 ${c.p99} ms, ${c.cpuUsPerReq ?? "?"} µs CPU/req`);
  console.log(
    `APM pay-ins (all fields): ${a.rps} req/s, p50 ${a.p50} ms, p99 ${a.p99} ms, ${a.cpuUsPerReq ?? "?"} µs CPU/req, ` +
      `${a.errors} errors, ${a.non2xx} non-2xx; ${(vsCard * 100).toFixed(0)}% of the card payment's req/s (target ≥ 100%: ${pass ? "met" : "MISSED"})`,
  );
  emit("apm-payin", {
    rps: a.rps,
    p50: a.p50,
    p99: a.p99,
    cpuUsPerReq: a.cpuUsPerReq,
    floorRps: f.rps,
    vsFloor: Number((f.rps > 0 ? a.rps / f.rps : 0).toFixed(3)),
    cardRps: c.rps,
    cardCpuUsPerReq: c.cpuUsPerReq,
    vsCard: Number(vsCard.toFixed(3)),
    errors: a.errors,
    non2xx: a.non2xx,
    pass,
    loader: a.loader,
  });

  // the HPP: one pay-in missing its fields, its page fetched over and over at one connection
  const pending = await fetch(`${sandbox.url}/api/v1/payments/apm`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: token },
    body: apmBody("bench-hpp", receiver.url, { bankName: "Bench Bank" }),
  });
  const redirectUrl = ((await pending.json()) as { apmResponseData: { redirectUrl: string } }).apmResponseData.redirectUrl;
  const path = new URL(redirectUrl).pathname;
  const pageRun = (d: number) => load({ url: sandbox.url, path, connections: 1, duration: d, pid: sandbox.pid });
  await pageRun(WARMUP);
  const h = await pageRun(Math.min(5, DURATION));
  const hppPass = h.p50 <= 5 && h.non2xx === 0;
  console.log(
    `HPP page: ${h.rps} req/s at 1 connection, p50 ${h.p50} ms, p99 ${h.p99} ms, ${h.cpuUsPerReq ?? "?"} µs CPU/req (target p50 ≤ 5 ms: ${hppPass ? "met" : "MISSED"})`,
  );
  emit("hpp-page", {
    rps: h.rps,
    p50: h.p50,
    p99: h.p99,
    cpuUsPerReq: h.cpuUsPerReq,
    non2xx: h.non2xx,
    target: "p50<=5ms",
    pass: hppPass,
    loader: h.loader,
  });
} finally {
  await sandbox.stop();
  await floor.stop();
  receiver.stop();
}
