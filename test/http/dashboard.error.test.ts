/**
 * Bad input to the dashboard (docs/dashboard.md): a page answers 400/404 naming the problem, and an
 * action whose service refuses (a 4xx) answers 303 back with the message as an error flash.
 * Nothing changes, and nothing is ever a 500.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, T0, type TestSandbox } from "../helpers/harness.js";
import { cookiesOf, flashOf, ORIGIN, pay } from "./dashboard.support.js";

let s: TestSandbox;
afterEach(() => s?.close());

describe("pages refuse bad parameters with a 4xx naming them", () => {
  it.each([
    ["/?kind=teleport", 400, "Invalid field: kind"],
    ["/?status=MAYBE", 400, "Invalid field: status"],
    ["/?merchant=nobody", 400, "Invalid field: merchant"],
    ["/?limit=0", 400, "Invalid field: limit (1 to 200)"],
    ["/?limit=201", 400, "Invalid field: limit (1 to 200)"],
    ["/?limit=abc", 400, "Invalid field: limit (1 to 200)"],
    ["/?before=yesterday", 400, "Invalid field: before"],
    ["/?after=1.2.3", 400, "Invalid field: after"],
    ["/?before=1.1&after=2.2", 400, "Invalid field: after (give before or after, not both)"],
    [`/?subscription=${"x".repeat(101)}`, 400, "Invalid field: subscription"],
    ["/dashboard/subscriptions?status=LOST", 400, "Invalid field: status"],
    ["/dashboard/subscriptions?before=-1.5", 400, "Invalid field: before"],
    ["/dashboard/transactions/tx_nope", 404, "Transaction not found: tx_nope"],
  ])("GET %s → %i", async (path, status, message) => {
    s = makeSandbox();
    const res = await s.http.get(path);
    expect(res.status).toBe(status);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.text).toContain(`<p class="panel" id="message">${message.replace(/&/g, "&amp;")}</p>`);
  });

  it("an unknown path under /dashboard is the usual 404", async () => {
    s = makeSandbox();
    const res = await s.http.get("/dashboard/nothing-here");
    expect(res.status).toBe(404);
  });
});

describe("actions a service refuses come back as an error flash, and change nothing", () => {
  const form = (path: string, fields: Record<string, string>) =>
    s.http.post(path).set("origin", ORIGIN).type("form").send(fields);

  async function flashAfter(res: { status: number; headers: Record<string, string> }) {
    expect(res.status).toBe(303);
    const page = await s.http.get(res.headers.location ?? "/").set("cookie", cookiesOf(res as never));
    expect(page.status).toBe(200);
    return flashOf(page.text);
  }

  it.each([
    [{ by: "P1X" }, "Invalid field: by"],
    [{ by: "-P1D" }, "Invalid field: by"],
    [{ by: "P101Y" }, "Invalid field: by (at most 100 years at once)"],
    [{ by: "  " }, "Missing required field: by"],
    [{}, "Missing required field: by"],
  ])("advance %j → %s", async (fields, message) => {
    s = makeSandbox();
    const res = await form("/dashboard/clock/advance", { ...fields, back: "/" });
    expect(await flashAfter(res)).toEqual({ kind: "error", text: message });
    expect(s.clock.nowMs()).toBe(T0);
  });

  it("complete: not waiting → 409 message; bad status or decline code → 400 message; unknown → 404 message", async () => {
    s = makeSandbox();
    const id = await pay(s);
    const back = `/dashboard/transactions/${id}`;
    const cases: Array<[string, Record<string, string>, string]> = [
      [id, { status: "SUCCEED" }, `Transaction ${id} is SUCCEED; only PROCESSING or PENDING can be completed`],
      [id, { status: "MAYBE" }, "Invalid field: status"],
      [id, {}, "Missing required field: status"],
      [id, { status: "FAILED", declineCode: "999" }, "Invalid field: declineCode"],
      [id, { status: "FAILED", declineCode: "5x" }, "Invalid field: declineCode"],
      ["tx_nope", { status: "SUCCEED" }, "Transaction not found: tx_nope"],
    ];
    for (const [target, fields, message] of cases) {
      const res = await form(`/dashboard/transactions/${target}/complete`, { ...fields, back });
      expect(await flashAfter(res)).toEqual({ kind: "error", text: message });
    }
    const status = await s.http.get(`/api/v1/payments/card/status/${id}`).set("authorization", await s.token());
    expect(status.body.transactionStatus).toBe("SUCCEED");
  });

  it("replay of an unknown delivery → its 404 message; nothing is enqueued", async () => {
    s = makeSandbox();
    const res = await form("/dashboard/webhooks/wh_nope/replay", { back: "/" });
    expect(await flashAfter(res)).toEqual({ kind: "error", text: "Webhook delivery not found: wh_nope" });
    expect((await s.http.get("/_sandbox/webhooks")).body).toEqual([]);
  });

  it("a body that is not a form reads as missing fields, not a 500", async () => {
    s = makeSandbox();
    const res = await s.http
      .post("/dashboard/clock/advance")
      .set("origin", ORIGIN)
      .set("content-type", "application/json")
      .send('{"by":"P1D"');
    expect(await flashAfter(res)).toEqual({ kind: "error", text: "Missing required field: by" });
    expect(s.clock.nowMs()).toBe(T0);
  });

  it("a flash cookie the sandbox did not write is ignored", async () => {
    s = makeSandbox();
    const res = await s.http.get("/").set("cookie", "paysandbox_flash=%%%not-base64");
    expect(res.status).toBe(200);
    expect(flashOf(res.text)).toBeUndefined();
  });
});

describe("no input makes the dashboard answer 5xx", () => {
  const text = fc.oneof(fc.string(), fc.constantFrom("", "P1D", "SUCCEED", "FAILED", "5", "/", "//x", "1.1", "%", "<script>"));

  it("random query values on every page → 200, 303, 400 or 404", async () => {
    s = makeSandbox();
    await pay(s);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          "/",
          "/dashboard/subscriptions",
          "/dashboard/merchants",
          "/dashboard/transactions/tx_000001",
          "/dashboard/login",
        ),
        fc.dictionary(fc.constantFrom("merchant", "kind", "status", "subscription", "before", "after", "limit", "next"), text),
        async (path, query) => {
          const res = await s.http.get(path).query(query);
          expect([200, 303, 400, 404]).toContain(res.status);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("random form fields on every action → 303 with a flash, and never a 5xx", async () => {
    s = makeSandbox();
    const id = await pay(s, { callbackUrl: "http://127.0.0.1:9/cb" });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          "/dashboard/clock/advance",
          "/dashboard/webhooks/wh_000001/replay",
          `/dashboard/transactions/${id}/complete`,
        ),
        fc.dictionary(fc.constantFrom("by", "status", "declineCode", "back", "token", "next"), text),
        async (path, fields) => {
          const res = await s.http.post(path).set("origin", ORIGIN).type("form").send(fields);
          expect(res.status).toBe(303);
          expect(String(res.headers["set-cookie"])).toMatch(/^paysandbox_flash=/);
        },
      ),
      { numRuns: 60 },
    );
  });
});
