/**
 * docs/parallel-suites.md isolation, by construction: nothing created in one sandbox is visible in or changed by
 * another or the root; a token issued elsewhere gets 401; the admin token guards every control plane.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";
import { refundBody } from "./refunds.support.js";
import { tokenizeBody } from "./subscriptions.support.js";

let s: TestServer;
afterEach(async () => {
  await s?.close();
});

describe("tokens are bound to their sandbox", () => {
  it("a token of one sandbox (or the root) gets 401 in every other", async () => {
    s = makeServer();
    const a = await s.create();
    const b = await s.create();
    const tokens = { root: await s.token(""), a: await s.token(a.base), b: await s.token(b.base) };
    const bases = { root: "", a: a.base, b: b.base };
    for (const [where, base] of Object.entries(bases)) {
      for (const [issuer, token] of Object.entries(tokens)) {
        const res = await s.http.post(`${base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody());
        expect(res.status, `${issuer}'s token in ${where}`).toBe(issuer === where ? 200 : 401);
      }
    }
  });
});

describe("the admin token guards /_sandbox/sandboxes and every sandbox's control plane", () => {
  it("401 without it, 2xx with it; health stays open; the gateway API is unaffected", async () => {
    s = makeServer({ config: { adminToken: "s3cret" } });
    expect((await s.http.post("/_sandbox/sandboxes").send({})).status).toBe(401);
    expect((await s.http.get("/_sandbox/sandboxes")).status).toBe(401);
    const created = await s.http.post("/_sandbox/sandboxes").set("authorization", "Bearer s3cret").send({});
    expect(created.status).toBe(201);
    const base = new URL(created.body.baseUrl).pathname;
    expect((await s.http.get(`${base}/_sandbox/clock`)).status).toBe(401);
    expect((await s.http.get(`${base}/_sandbox/clock`).set("authorization", "Bearer s3cret")).status).toBe(200);
    expect((await s.http.get(`${base}/_sandbox/health`)).status).toBe(200);
    expect(
      (
        await s.http
          .post(`${base}/api/v1/auth`)
          .send({ merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret" })
      ).status,
    ).toBe(200);
    expect((await s.http.delete(`/_sandbox/sandboxes/${created.body.id}`)).status).toBe(401);
    expect((await s.http.delete(`/_sandbox/sandboxes/${created.body.id}`).set("authorization", "Bearer s3cret")).status).toBe(
      204,
    );
  });
});

/** Everything a reader of one sandbox can see: its transactions (by id), its journal, clock, scenarios. */
async function snapshot(base: string, token: string, ids: string[]) {
  const reads = await Promise.all(
    ids.map((id) => s.http.get(`${base}/api/v1/payments/card/info/${id}`).set("authorization", token)),
  );
  const journal = await s.http.get(`${base}/_sandbox/webhooks?limit=1000`);
  const clock = await s.http.get(`${base}/_sandbox/clock`);
  const scenarios = await s.http.get(`${base}/_sandbox/scenarios`);
  return {
    reads: reads.map((r) => [r.status, r.body]),
    journal: journal.body,
    clock: clock.body,
    scenarios: scenarios.body,
  };
}

describe("isolation as a property", () => {
  it("random operations in random sandboxes leave every other sandbox and the root unchanged; foreign ids are unknown", async () => {
    s = makeServer();
    const sandboxes = [await s.create(), await s.create(), await s.create()];
    const bases = ["", ...sandboxes.map((x) => x.base)];
    const tokens = new Map<string, string>();
    for (const base of bases) tokens.set(base, await s.token(base));
    // each sandbox starts with a payment of its own, so every read has something to find
    const own = new Map<string, string[]>();
    for (const base of bases) {
      const pay = await s.http
        .post(`${base}/api/v1/payments/card`)
        .set("authorization", tokens.get(base) as string)
        .send(cardPaymentBody());
      own.set(base, [pay.body.transactionId]);
    }
    const allIds = () => [...own.values()].flat();

    const op = fc.oneof(
      fc.record({ kind: fc.constant("pay" as const), amount: fc.integer({ min: 1, max: 99_999 }) }),
      fc.record({ kind: fc.constant("refund" as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant("tokenize" as const) }),
      fc.record({ kind: fc.constant("advance" as const), by: fc.constantFrom("PT1M", "P1D", "P1M") }),
      fc.record({ kind: fc.constant("reset" as const) }),
      fc.record({ kind: fc.constant("scenario" as const), n: fc.nat({ max: 5 }) }),
      fc.record({ kind: fc.constant("foreign" as const), pick: fc.nat() }),
    );

    await fc.assert(
      fc.asyncProperty(fc.nat({ max: bases.length - 1 }), op, async (which, o) => {
        const base = bases[which] as string;
        const token = tokens.get(base) as string;
        const others = bases.filter((b) => b !== base);
        const before = await Promise.all(others.map((b) => snapshot(b, tokens.get(b) as string, own.get(b) ?? [])));
        switch (o.kind) {
          case "pay": {
            const amount = (o.amount / 100).toFixed(2);
            const res = await s.http
              .post(`${base}/api/v1/payments/card`)
              .set("authorization", token)
              .send(cardPaymentBody({ amount }));
            if (res.body.transactionId) own.get(base)?.push(res.body.transactionId);
            break;
          }
          case "refund": {
            const mine = own.get(base) ?? [];
            const id = mine[o.pick % Math.max(1, mine.length)];
            if (id) await s.http.post(`${base}/api/v1/refunds/card`).set("authorization", token).send(refundBody(id, "0.01"));
            break;
          }
          case "tokenize":
            await s.http.post(`${base}/api/v1/payments/card/tokenize`).set("authorization", token).send(tokenizeBody());
            break;
          case "advance":
            await s.http.post(`${base}/_sandbox/clock/advance`).send({ by: o.by });
            tokens.set(base, await s.token(base)); // a month's jump can outlive a token
            break;
          case "reset":
            await s.http.post(`${base}/_sandbox/reset`).send({});
            own.set(base, []);
            tokens.set(base, await s.token(base));
            break;
          case "scenario":
            await s.http
              .post(`${base}/_sandbox/scenarios`)
              .send({ name: `s${o.n}`, rules: [{ amount: "13.37", status: "FAILED", declineCode: 5 }] });
            break;
          case "foreign": {
            // an id of another sandbox is unknown here, for reads and for refunds
            const foreign = allIds().filter((id) => !(own.get(base) ?? []).includes(id));
            const id = foreign[o.pick % Math.max(1, foreign.length)];
            if (!id) break;
            const read = await s.http.get(`${base}/api/v1/payments/card/status/${id}`).set("authorization", token);
            expect(read.status).toBeGreaterThanOrEqual(400);
            expect(read.status).toBeLessThan(500);
            const refund = await s.http
              .post(`${base}/api/v1/refunds/card`)
              .set("authorization", token)
              .send(refundBody(id, "0.01"));
            expect(refund.status).toBeGreaterThanOrEqual(400);
            expect(refund.status).toBeLessThan(500);
            break;
          }
        }
        const after = await Promise.all(others.map((b) => snapshot(b, tokens.get(b) as string, own.get(b) ?? [])));
        expect(after).toEqual(before);
      }),
      { numRuns: 40 },
    );
  });
});

describe("dot segments under /sandboxes/ (docs/parallel-suites.md)", () => {
  /** A dot segment as a client may spell it: plain, percent-encoded in either case, or mixed. */
  const dot = fc.constantFrom(".", "%2e", "%2E");
  const dotSegment = fc.oneof(
    dot,
    fc.tuple(dot, dot).map(([x, y]) => x + y),
  );

  it("refuses them with a 404 that acts on nothing: nothing under one sandbox reaches another or the root (property)", async () => {
    s = makeServer();
    const a = await s.create({ startTime: "2030-01-01T00:00:00Z" });
    const b = await s.create({ startTime: "2031-01-01T00:00:00Z" });
    const clocks = async () =>
      Promise.all(["", a.base, b.base].map(async (base) => (await s.http.get(`${base}/_sandbox/clock`)).body.now as string));
    const before = await clocks();
    const segment = fc.oneof(
      { weight: 3, arbitrary: dotSegment },
      { weight: 1, arbitrary: fc.constantFrom(a.id, b.id, "sandboxes", "_sandbox", "clock", "advance", "x") },
    );
    // a path under A with at least one dot segment, ending where a clock moves
    const path = fc
      .tuple(fc.array(segment, { maxLength: 4 }), dotSegment, fc.array(segment, { maxLength: 4 }), fc.boolean())
      .map(([pre, d, post, underA]) =>
        [underA ? `/sandboxes/${a.id}` : "/sandboxes", ...pre, d, ...post, "_sandbox", "clock", "advance"].join("/"),
      );
    await fc.assert(
      fc.asyncProperty(path, async (p) => {
        const res = await s.http.post(p).send({ by: "P1D" });
        expect(res.status, p).toBe(404);
        expect(await clocks(), p).toEqual(before);
      }),
      { numRuns: 150 },
    );
    // the two: the root through `..`, B through A
    for (const p of [`/sandboxes/%2e%2e/_sandbox/clock/advance`, `/sandboxes/${a.id}/%2e%2e/${b.id}/_sandbox/clock/advance`]) {
      expect((await s.http.post(p).send({ by: "P1D" })).status, p).toBe(404);
    }
    // an absolute-form request target, as a proxy sends it
    const absolute = await s.server.fetch(
      new Request("http://sandbox.test/_sandbox/clock/advance", { method: "POST", body: '{"by":"P1D"}' }),
      { incoming: { url: "http://sandbox.test/sandboxes/%2E./_sandbox/clock/advance" } },
    );
    expect(absolute.status).toBe(404);
    expect(await clocks()).toEqual(before);
    // a plain path still works
    expect((await s.http.post(`${a.base}/_sandbox/clock/advance`).send({ by: "P1D" })).status).toBe(200);
  });
});
