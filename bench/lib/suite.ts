/**
 * A test suite against a server, the fixture pattern of docs/snapshots.md (bench/sandbox-storm.ts part
 * 6, bench/ab/suite-profile.ts): 32 test files, 4 at once, each getting a sandbox with a prepared
 * world, running one test in it and deleting it. Three ways to get the world: `build` (each file
 * builds it with 31 API calls and an advance), `snapshot` (each loads the world's file) and `from`
 * (each forks a sandbox that holds it).
 */
import { BENCH_BILLING, paymentBody } from "./bodies.js";
import { merchantToken } from "./gateway.js";

export const SUITE_FILES = 32;
const SUITE_START = "2026-01-15T12:00:00Z";
const SNAPSHOT = "application/vnd.paysandbox.snapshot";
export type SuiteWay = "build" | "snapshot" | "from";
/** A test file's steps, in order: its sandbox (`get`), its test (`token`, `refund`, `status`) and its deletion. */
export type SuitePhase = "get" | "token" | "refund" | "status" | "delete";
/** Called around each step of each file: `phase` runs `step` and may time it. */
export type PhaseHook = <T>(phase: SuitePhase, step: () => Promise<T>) => Promise<T>;
const untimed: PhaseHook = (_phase, step) => step();

/** One call; anything but a 2xx throws. */
async function suiteCall<T = Record<string, unknown>>(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const binary = body instanceof Uint8Array;
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": binary ? SNAPSHOT : "application/json" }), ...headers },
    ...(body === undefined
      ? {}
      : { body: binary ? new Uint8Array(body) : typeof body === "string" ? body : JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  return (res.status === 204 ? {} : await res.json()) as T;
}

/**
 * The suite's world in the sandbox at `base`: 20 card payments, 5 saved cards, 3 monthly
 * subscriptions on them, the clock advanced P2M (two charges in each), a refund of 5.00 pending (31
 * API calls and an advance). Answers the second payment's id, which a test refunds.
 */
async function suiteWorld(base: string): Promise<string> {
  const auth = { authorization: await merchantToken(base) };
  const paid: string[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await suiteCall<{ transactionId: string }>("POST", `${base}/api/v1/payments/card`, paymentBody(`pay-${i}`), auth);
    paid.push(r.transactionId);
  }
  for (let i = 0; i < 5; i++) {
    const { token } = await suiteCall<{ token: string }>(
      "POST",
      `${base}/api/v1/payments/card/tokenize`,
      {
        requestId: `tok-${i}`,
        merchantId: 1001,
        card: { number: "4111111111111111", expMonth: "12", expYear: "2030", cvv: "123" },
        billingDetails: BENCH_BILLING,
      },
      auth,
    );
    if (i >= 3) continue;
    await suiteCall(
      "POST",
      `${base}/api/v1/payments/card/recurring`,
      {
        requestId: `sub-${i}`,
        mid: "sandbox-mid-001",
        cardToken: token,
        plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: SUITE_START.slice(0, 10) },
        order: { orderId: `plan-${i}` },
        device: { ip: "203.0.113.7", userAgent: "bench" },
        // nothing listens there: its deliveries fail at once and wait for their retries (a copy skips them)
        callbackUrl: "http://127.0.0.1:9/hooks",
        successRedirectUrl: "https://shop.example/ok",
        failureRedirectUrl: "https://shop.example/ko",
      },
      auth,
    );
  }
  await suiteCall("POST", `${base}/_sandbox/clock/advance`, { by: "P2M" });
  // a token lives 30 virtual days: a new one after the advance
  auth.authorization = await merchantToken(base);
  await suiteCall(
    "POST",
    `${base}/v1/refunds/card`,
    { requestId: "refund-world", mid: "sandbox-mid-001", transactionId: paid[0], amount: "5.00", reason: "bench" },
    auth,
  );
  return paid[1] as string;
}

/** A test file's test: the full refund of the world's second payment, then its status. */
async function suiteTest(base: string, orderId: string, phase: PhaseHook): Promise<void> {
  const auth = { authorization: await phase("token", () => merchantToken(base)) };
  const refund = await phase("refund", () =>
    suiteCall<{ transactionStatus: string }>(
      "POST",
      `${base}/v1/refunds/card`,
      { requestId: crypto.randomUUID(), mid: "sandbox-mid-001", transactionId: orderId, amount: "20.50", reason: "bench" },
      auth,
    ),
  );
  if (refund.transactionStatus !== "PENDING") throw new Error(`refund is ${refund.transactionStatus}`);
  await phase("status", () => suiteCall("GET", `${base}/api/v1/payments/card/status/${orderId}`, undefined, auth));
}

/** How a test file gets its sandbox with the world: the way's set-up, then `create` per file. */
export async function suitePrepare(
  url: string,
  way: SuiteWay,
): Promise<(name: string) => Promise<{ id: string; orderId: string }>> {
  const sandboxes = `${url}/_sandbox/sandboxes`;
  const baseOf = (id: string) => `${url}/sandboxes/${id}`;
  if (way === "build") {
    return async (name) => {
      const { id } = await suiteCall<{ id: string }>("POST", sandboxes, { name, startTime: SUITE_START });
      return { id, orderId: await suiteWorld(baseOf(id)) };
    };
  }
  const world = await suiteCall<{ id: string }>("POST", sandboxes, { name: "world", startTime: SUITE_START });
  const orderId = await suiteWorld(baseOf(world.id));
  if (way === "from") {
    return async (name) => ({ id: (await suiteCall<{ id: string }>("POST", sandboxes, { from: world.id, name })).id, orderId });
  }
  const res = await fetch(`${baseOf(world.id)}/_sandbox/snapshot`);
  const file = new Uint8Array(await res.arrayBuffer());
  await suiteCall("DELETE", `${sandboxes}/${world.id}`);
  return async (name) => ({
    id: (await suiteCall<{ id: string }>("POST", `${sandboxes}?name=${encodeURIComponent(name)}`, file)).id,
    orderId,
  });
}

/** The test files run with `create`, `parallel` at once: each gets its sandbox, runs its test and deletes it. */
export async function suiteFiles(
  url: string,
  create: (name: string) => Promise<{ id: string; orderId: string }>,
  o: { tag: string; parallel: number; files?: number; phase?: PhaseHook },
): Promise<void> {
  const phase = o.phase ?? untimed;
  const files = o.files ?? SUITE_FILES;
  let next = 0;
  await Promise.all(
    Array.from({ length: o.parallel }, async () => {
      while (next < files) {
        const i = next++;
        const { id, orderId } = await phase("get", () => create(`${o.tag}-${i}`));
        await suiteTest(`${url}/sandboxes/${id}`, orderId, phase);
        await phase("delete", () => suiteCall("DELETE", `${url}/_sandbox/sandboxes/${id}`));
      }
    }),
  );
}

/** The suite run one way: its wall time (ms), the world's set-up included. */
export async function suite(url: string, way: SuiteWay, parallel: number): Promise<number> {
  const t0 = performance.now();
  const create = await suitePrepare(url, way);
  await suiteFiles(url, create, { tag: way, parallel });
  return performance.now() - t0;
}
