/** `paysandbox run` on a fresh in-process sandbox: every step kind passing (docs/run.md). */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scenarioJsonSchema } from "../../src/cli/schema.js";
import { hmacBase64 } from "../../src/platform/crypto.js";
import { readForm } from "../../src/runner/form.js";
import { loadScenarioFile } from "../../src/runner/load.js";
import { fillChecksums, resolveRefs } from "../../src/runner/refs.js";
import { InFileOrder } from "../../src/runner/report.js";
import { runFiles } from "../../src/runner/run.js";
import { ROOT } from "../helpers/server.js";
import { CARDS } from "./payments.body.js";
import { payment, runCli, runDoc, START, scenarioFile, threeDsPayment } from "./runner.support.js";

const QA = { merchantKey: "qa_key", merchantSecret: "qa_secret", mid: "qa-mid", merchantId: 5001, accountId: 6001 };

describe("paysandbox schema", () => {
  it("scenarios/scenario.schema.json is the JSON Schema generated from the zod schema (run `paysandbox schema` to refresh it)", () => {
    const file = readFileSync(join(ROOT, "scenarios/scenario.schema.json"), "utf8");
    expect(file).toBe(`${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
  });
});

describe("the example of docs/run.md", () => {
  it("checkout.yaml passes as shown", async () => {
    const page = readFileSync(join(ROOT, "docs/run.md"), "utf8");
    const at = page.indexOf("A complete example, `checkout.yaml`:");
    expect(at).toBeGreaterThan(0);
    const yaml = /```yaml\n([\s\S]*?)```/.exec(page.slice(at))?.[1] ?? "";
    const loaded = loadScenarioFile(scenarioFile(yaml, "yaml"));
    if (!loaded.ok) throw new Error(loaded.message);
    const [r] = await runFiles([loaded.loaded]);
    expect(r?.steps.map((s) => [s.name, s.status, s.message])).toEqual(r?.steps.map((s) => [s.name, "passed", undefined]));
    expect(r?.steps).toHaveLength(7);
  });
});

describe("paysandbox run: steps that pass", () => {
  it("requests with auth, expect on status, body and headers, save and ${name.path} references", async () => {
    const r = await runDoc({
      name: "requests",
      startTime: START,
      steps: [
        {
          request: "POST /api/v1/payments/card",
          body: payment(),
          expect: { status: 200, body: { transactionStatus: "SUCCEED" }, headers: { "content-type": "application/json" } },
          save: "p",
        },
        {
          name: "status by saved id",
          request: "GET /api/v1/payments/card/status/${p.transactionId}",
          expect: { body: { transactionId: "${p.transactionId}", transactionStatus: "SUCCEED" } },
        },
        { request: "GET /v1/payments/card/info/${p.transactionId}", expect: { body: { orderAmount: 20.5, declineCode: null } } },
        { request: "GET /_sandbox/clock", expect: { body: { now: "2026-03-01T09:00:00.000Z" } } },
      ],
    });
    expect(r.error).toBeUndefined();
    expect(r.steps.map((s) => [s.status, s.message])).toEqual(Array(4).fill(["passed", undefined]));
    expect(r.steps[1]?.name).toBe("status by saved id");
    expect(r.steps[0]?.name).toBe("POST /api/v1/payments/card");
    expect(r.steps[0]?.summary).toBe("POST /api/v1/payments/card → 200");
  });

  it("acts as the file's first merchant by default, and as any merchant of the file or the built-in one with `as`", async () => {
    const r = await runDoc({
      name: "merchants",
      merchants: [QA],
      steps: [
        { request: "POST /api/v1/payments/card", body: payment({ mid: "qa-mid" }), expect: { status: 200 }, save: "qa" },
        {
          as: "sandbox_merchant_key",
          request: "POST /api/v1/payments/card",
          body: payment(),
          expect: { status: 200 },
          save: "b",
        },
        // each merchant sees only its own transactions
        { as: "sandbox_merchant_key", request: "GET /api/v1/payments/card/status/${qa.transactionId}", expect: { status: 404 } },
        { request: "GET /api/v1/payments/card/status/${qa.transactionId}", expect: { status: 200 } },
      ],
    });
    expect(r.steps.map((s) => s.status)).toEqual(["passed", "passed", "passed", "passed"]);
  });

  it("${uuid} is fresh at each use; a whole-string reference keeps its type", async () => {
    const a = resolveRefs({ a: "${uuid}", b: "${uuid}" }, { saved: new Map(), callbackUrl: () => "" }) as Record<string, string>;
    expect(a.a).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.a).not.toBe(a.b);
    const saved = new Map<string, unknown>([["p", { amount: 20.5, items: [{ id: "x" }] }]]);
    expect(
      resolveRefs(
        { n: "${p.amount}", s: "got ${p.amount}", i: "${p.items[0].id}", j: "${p.items.0.id}" },
        { saved, callbackUrl: () => "" },
      ),
    ).toEqual({
      n: 20.5,
      s: "got 20.5",
      i: "x",
      j: "x",
    });
  });

  it("${checksum} is Base64(HMAC-SHA256(secret, accountId|amount|currency|requestId)) of its body, amount as sent", () => {
    const body = fillChecksums(
      { accountId: 6001, amount: "10.50", currency: "INR", requestId: "r-1", checksum: "${checksum}" },
      "qa_secret",
    );
    const mac = hmacBase64("qa_secret", "6001|10.50|INR|r-1");
    expect(body).toMatchObject({ checksum: mac });
    expect(mac).not.toBe(hmacBase64("qa_secret", "6001|10.5|INR|r-1"));
  });

  it("advance moves the clock and runs what is due; auth is renewed after a jump past the token's 30 days", async () => {
    const r = await runDoc({
      name: "advance",
      startTime: START,
      steps: [
        { request: "POST /api/v1/payments/card", body: payment(), expect: { status: 200 }, save: "p" },
        { advance: "P45D" },
        { request: "GET /_sandbox/clock", expect: { body: { now: "2026-04-15T09:00:00.000Z" } } },
        { request: "GET /api/v1/payments/card/status/${p.transactionId}", expect: { status: 200 } },
      ],
    });
    expect(r.steps.map((s) => s.status)).toEqual(["passed", "passed", "passed", "passed"]);
    expect(r.steps[1]?.summary).toBe("advance P45D → 2026-04-15T09:00:00.000Z");
  });

  it("threeDS posts the challenge page's form both ways; webhook finds the delivery in the journal", async () => {
    const r = await runDoc({
      name: "three-ds",
      startTime: START,
      steps: [
        {
          request: "POST /api/v1/payments/card",
          body: threeDsPayment(),
          expect: { body: { transactionStatus: "CUSTOMER_VERIFICATION" } },
          save: "ok",
        },
        { threeDS: { transactionId: "${ok.transactionId}", outcome: "success" } },
        {
          webhook: { transactionId: "${ok.transactionId}", body: { transactionStatus: "SUCCEED" }, delivery: "delivered" },
          save: "hook",
        },
        { request: "GET /api/v1/payments/card/status/${hook.transactionId}", expect: { body: { transactionStatus: "SUCCEED" } } },
        { request: "POST /api/v1/payments/card", body: threeDsPayment({ card: { number: CARDS.threeDs } }), save: "ko" },
        { threeDS: { transactionId: "${ko.transactionId}", outcome: "failure" } },
        {
          request: "GET /api/v1/payments/card/info/${ko.transactionId}",
          expect: { body: { transactionStatus: "FAILED", declineCode: 3 } },
        },
        { webhook: { transactionId: "${ko.transactionId}", body: { transactionStatus: "FAILED", declineCode: 3 } } },
      ],
    });
    expect(r.steps.map((s) => [s.status, s.message])).toEqual(Array(8).fill(["passed", undefined]));
    expect(r.steps[1]?.summary).toMatch(
      /^threeDS success: POST \/sandbox\/3ds\/tx_\w+ → 303 https:\/\/shop\.example\/ok\?cart=7&transactionId=tx_/,
    );
  });

  it("webhook finds subscription callbacks by subscriptionId", async () => {
    const r = await runDoc({
      name: "subscription",
      startTime: START,
      steps: [
        {
          request: "POST /api/v1/payments/card/tokenize",
          body: {
            requestId: "${uuid}",
            merchantId: 1001,
            card: { number: CARDS.visa, expMonth: "12", expYear: "2030", cvv: "737" },
            billingDetails: payment().billingDetails,
          },
          save: "tok",
        },
        {
          request: "POST /api/v1/payments/card/recurring",
          body: {
            requestId: "${uuid}",
            mid: "sandbox-mid-001",
            cardToken: "${tok.token}",
            plan: { amount: "5.00", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: "2026-03-01" },
            order: { orderId: "o" },
            device: payment().device,
            callbackUrl: "${callbackUrl}",
            successRedirectUrl: "https://shop.example/ok",
            failureRedirectUrl: "https://shop.example/ko",
          },
          expect: { body: { status: "ACTIVE" } },
          save: "sub",
        },
        { advance: "P1M" },
        {
          webhook: { subscriptionId: "${sub.subscriptionId}", body: { chargeDate: "2026-04-01", transactionStatus: "SUCCEED" } },
        },
      ],
    });
    expect(r.steps.map((s) => [s.status, s.message])).toEqual(Array(4).fill(["passed", undefined]));
  });

  it("reads a page's form as a browser would: action, hidden inputs, fields, outcome buttons", () => {
    const form = readForm(`<html><body><p>Pay</p>
      <form method="post" action="/sandbox/hpp/tx_1?x=1&amp;y=2">
        <input type="hidden" name="csrf" value="abc">
        <label>Account <input name="accountNumber" required></label>
        <select name="bankName"><option>A</option></select>
        <button type="submit" name="outcome" value="success">Pay</button>
        <button type="submit" name="outcome" value='failure'>Cancel</button>
      </form></body></html>`);
    expect(form).toEqual({
      method: "POST",
      action: "/sandbox/hpp/tx_1?x=1&y=2",
      inputs: new Map([
        ["csrf", "abc"],
        ["accountNumber", ""],
        ["bankName", ""],
      ]),
      outcomes: ["success", "failure"],
    });
    expect(readForm("<p>no form</p>")).toBeUndefined();
  });
});

describe("paysandbox run: files side by side", () => {
  /** A file whose clock moves `days` days, then checks it moved from its own start only. */
  const dayFile = (name: string, days: number) =>
    scenarioFile({
      name,
      startTime: START,
      steps: [
        { request: "POST /api/v1/payments/card", body: payment({ callbackUrl: "${callbackUrl}" }), save: "p" },
        { advance: `P${days}D` },
        {
          request: "GET /_sandbox/clock",
          expect: { body: { now: `2026-03-${String(1 + days).padStart(2, "0")}T09:00:00.000Z` } },
        },
        { webhook: { transactionId: "${p.transactionId}", delivery: "delivered" } },
        { request: "GET /_sandbox/webhooks", expect: { body: [{ status: "delivered" }] } },
      ],
    });

  it("each on its own in-process sandbox; each file's lines together, in the files' order, whatever order they end in", async () => {
    const files = [dayFile("slow", 20), dayFile("fast", 1), dayFile("mid", 9)];
    for (const parallel of [undefined, 1, 3]) {
      const { code, out } = await runCli(files, parallel === undefined ? {} : { parallel });
      expect(code, out).toBe(0);
      const lines = out.trimEnd().split("\n");
      expect(lines.filter((l) => !l.startsWith("  pass  "))).toEqual([
        `${files[0]} (slow, fresh in-process sandbox)`,
        `${files[1]} (fast, fresh in-process sandbox)`,
        `${files[2]} (mid, fresh in-process sandbox)`,
        "15 passed, 0 failed",
      ]);
      for (const f of files) {
        const at = lines.indexOf(lines.find((l) => l.startsWith(`${f} (`)) ?? "");
        expect(lines.slice(at + 1, at + 6).map((l) => l.slice(0, 11))).toEqual([0, 1, 2, 3, 4].map((i) => `  pass  [${i}]`));
      }
    }
  });

  it("prints a file's lines once every file before it has ended, the first unfinished one's as they come", () => {
    let out = "";
    const print = new InFileOrder(3, (t) => {
      out += t;
    });
    print.write(2, "c1 ");
    print.write(0, "a1 ");
    print.write(1, "b1 ");
    expect([print.isLive(0), print.isLive(1)]).toEqual([true, false]);
    print.end(2);
    print.write(0, "a2 ");
    expect(out).toBe("a1 a2 ");
    print.end(0); // b is now live, c has ended: b's so far, then b's as they come
    expect(out).toBe("a1 a2 b1 ");
    expect(print.isLive(1)).toBe(true);
    print.write(1, "b2 ");
    print.end(1);
    expect(out).toBe("a1 a2 b1 b2 c1 ");
  });

  it("the JSON report keeps the files' order", async () => {
    const files = [dayFile("a", 3), dayFile("b", 2)];
    const { code, out } = await runCli(files, { reporter: "json", parallel: 2 });
    expect(code).toBe(0);
    const doc = JSON.parse(out) as { files: Array<{ file: string; sandbox?: unknown }> };
    expect(doc.files.map((f) => f.file)).toEqual(files);
    expect(doc.files[0]?.sandbox).toBeUndefined();
  });
});
