/** Calls of the gateway API as the benches make them, and the rows they seed instead of calls. */
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import type BetterSqlite3 from "better-sqlite3";
import { CARD_BILLING, exampleDevice } from "../../src/platform/examples.js";
import { BUILTIN_MERCHANT } from "../../src/platform/fixtures.js";
import { paymentBody } from "./bodies.js";
import { type LoadResult, load } from "./load.js";

/** The built-in merchant's bearer token from the sandbox at `url` (POST /api/v1/auth). */
export async function merchantToken(url: string): Promise<string> {
  const res = await fetch(`${url}/api/v1/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" }),
  });
  if (!res.ok) throw new Error(`POST /api/v1/auth answered ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

export interface Answer {
  status: number;
  body: string;
  ms: number;
}

/**
 * One request on a keep-alive agent (node:http: little client time in the figure), timed to its last
 * byte. A Buffer body is sent as it is (a snapshot file: give its content-type in `headers`); any other
 * body as JSON.
 */
export function timedCall(
  agent: HttpAgent,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined || Buffer.isBuffer(body) ? body : typeof body === "string" ? body : JSON.stringify(body);
    const h: Record<string, string | number> = { ...headers };
    if (payload !== undefined) {
      h["content-type"] ??= "application/json";
      h["content-length"] = Buffer.byteLength(payload);
    }
    const t0 = performance.now();
    const req = httpRequest(url, { method, agent, headers: h }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), ms: performance.now() - t0 }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/**
 * `n` calls from `clients` clients at once, each on its own keep-alive connection, taking the next
 * index until all are taken: each call's answer, in the order they ended.
 */
export async function fromClients(
  clients: number,
  n: number,
  one: (agent: HttpAgent, i: number) => Promise<Answer>,
): Promise<Answer[]> {
  const answers: Answer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      const agent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
      try {
        while (next < n) answers.push(await one(agent, next++));
      } finally {
        agent.destroy();
      }
    }),
  );
  return answers;
}

let runs = 0;

/**
 * Card payments (paymentBody()) under load(): to the sandbox's /api/v1/payments/card with the
 * merchant's `token`, or without one to a floor's POST / (startBareFloor), each run's requestIds
 * its own; with a callback to `callbackUrl` when given. The server's CPU per request comes with it.
 */
export function paymentLoad(
  server: { url: string; pid: number },
  o: { token?: string; callbackUrl?: string; connections: number; duration: number; loader?: "wrk" | "autocannon" },
): Promise<LoadResult> {
  const prefix = `pay-${++runs}-`;
  return load({
    url: server.url,
    method: "POST",
    path: o.token === undefined ? "/" : "/api/v1/payments/card",
    ...(o.token === undefined ? {} : { headers: { authorization: o.token } }),
    bodyFor: (i) => paymentBody(`${prefix}${i}`, o.callbackUrl),
    connections: o.connections,
    duration: o.duration,
    pid: server.pid,
    ...(o.loader ? { loader: o.loader } : {}),
  });
}

/**
 * Seeds `size` monthly subscriptions of 9.99 USD on 4111… (`profile`: its outcome profile), each
 * with its card token, all due at `now`, straight into the sandbox database `sqlite` in one
 * transaction: what the scheduler benches charge. Their callbacks go to `callbackUrl`.
 */
export function seedDueSubscriptions(
  sqlite: BetterSqlite3.Database,
  o: { size: number; profile: string; now: number; callbackUrl: string; createdAt: number },
): void {
  const insToken = sqlite.prepare(
    `INSERT INTO card_tokens (token, merchant_key, request_id, card_bin, card_last4, exp_month, exp_year, card_brand,
      card_profile, expiration_date, billing_details, created_at) VALUES (?, ?, ?, '411111', '1111', '12', '2030', 'VISA', ?, '2026-05-30', ?, ?)`,
  );
  const insSub = sqlite.prepare(
    `INSERT INTO subscriptions (id, merchant_key, request_id, card_token, status, amount, currency, frequency, interval,
      start_date, next_charge_date, next_charge_at, failure_count, charge_count, max_retries, skip_first_charge,
      callback_url, success_redirect_url, failure_redirect_url, billing_details, order_data, device, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'ACTIVE', 999, 'USD', 'MONTHLY', 1, '2026-02-01', '2026-03-01', ?, 0, 1, 3, 0, ?, ?, ?, ?, '{}', ?, ?, ?)`,
  );
  const { firstName, lastName, email, country } = CARD_BILLING;
  const billing = JSON.stringify({ firstName, lastName, email, country });
  const device = JSON.stringify(exampleDevice("bench"));
  const key = BUILTIN_MERCHANT.merchantKey;
  const cb = o.callbackUrl;
  sqlite.transaction(() => {
    for (let i = 0; i < o.size; i++) {
      const tok = `tok_bench${String(i).padStart(11, "0")}`;
      insToken.run(tok, key, `t${i}`, o.profile, billing, o.now - 86_400_000);
      insSub.run(
        `sub_bench${String(i).padStart(11, "0")}`,
        key,
        `s${i}`,
        tok,
        o.now,
        cb,
        cb,
        cb,
        billing,
        device,
        o.createdAt,
        o.createdAt,
      );
    }
  })();
}
