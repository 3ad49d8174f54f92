/**
 * Target (docs/webhooks.md#one-receiver-cannot-hold-up-another): with 10 silent receivers taking deliveries (they accept the connection
 * and never answer), a normal receiver's webhook leaves within 50 ms (p99) of its payment being
 * acknowledged. Against the built server (`node dist/main.js start`, LOG_LEVEL=warn).
 *
 * Each round posts one payment to each silent receiver, then one to the normal receiver, and
 * measures from the normal payment's HTTP answer to the webhook's arrival. The silent receivers
 * keep their requests hanging for the whole run (the server's 10 s timeout then fails them).
 * Run alone: `npm run build && npx tsx bench/webhook-isolation.ts` (BENCH_ROUNDS=n).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { CARD_BILLING, exampleDevice } from "../src/platform/examples.js";
import { emit, merchantToken, percentile, startSandbox } from "./lib.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300);
const SILENT = 10;

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const arrivals = new Map<string, number>();
const waiters = new Map<string, () => void>();
const silentHits = { n: 0 };
const silent = await Promise.all(
  Array.from({ length: SILENT }, () =>
    listen((req) => {
      silentHits.n++;
      req.resume(); // read it, never answer
    }),
  ),
);
const normal = await listen((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    const at = performance.now();
    res.end("ok");
    const tx = (JSON.parse(Buffer.concat(chunks).toString()) as { transactionId: string }).transactionId;
    arrivals.set(tx, at);
    waiters.get(tx)?.();
  });
});

const sandbox = await startSandbox();
try {
  const token = await merchantToken(sandbox.url);
  let n = 0;
  const pay = async (callbackUrl: string) => {
    const res = await fetch(`${sandbox.url}/api/v1/payments/card`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: token },
      body: JSON.stringify({
        requestId: `iso-${process.pid}-${++n}`,
        mid: "sandbox-mid-001",
        amount: "20.50",
        currency: "USD",
        lang: "en",
        card: {
          number: "4111111111111111",
          cardHolderName: "Ada Lovelace",
          expMonth: "12",
          expYear: "2030",
          cvv: "737",
          requestThreeDSecure: false,
        },
        billingDetails: CARD_BILLING,
        order: { orderId: `o-${n}` },
        device: exampleDevice("bench"),
        callbackUrl,
      }),
    });
    const at = performance.now();
    const body = (await res.json()) as { transactionId: string };
    if (res.status !== 200) throw new Error(`payment answered ${res.status}: ${JSON.stringify(body)}`);
    return { tx: body.transactionId, at };
  };

  const latencies: number[] = [];
  const t0 = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    await Promise.all(silent.map((s) => pay(`${s.url}/hang`)));
    const { tx, at } = await pay(`${normal.url}/hooks`);
    const arrived =
      arrivals.get(tx) ??
      (await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`webhook of ${tx} did not arrive within 15 s`)), 15_000);
        waiters.set(tx, () => {
          clearTimeout(timer);
          resolve(arrivals.get(tx) as number);
        });
      }));
    latencies.push(Math.max(0, arrived - at));
  }
  const seconds = (performance.now() - t0) / 1000;
  const p50 = Number(percentile(latencies, 50).toFixed(1));
  const p99 = Number(percentile(latencies, 99).toFixed(1));
  console.log(
    `${ROUNDS} normal webhooks beside ${SILENT} silent receivers (${silentHits.n} requests hanging there) in ${seconds.toFixed(1)} s: ` +
      `p50 ${p50} ms, p99 ${p99} ms, max ${percentile(latencies, 100).toFixed(1)} ms after the payment's answer (target p99 ≤ 50 ms: ${p99 <= 50 ? "met" : "MISSED"})`,
  );
  emit("webhook-isolation", { rounds: ROUNDS, silentReceivers: SILENT, silentHanging: silentHits.n, p50Ms: p50, p99Ms: p99 });
} finally {
  await sandbox.stop();
  for (const s of [...silent, normal]) {
    s.server.closeAllConnections();
    s.server.close();
  }
}
