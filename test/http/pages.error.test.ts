/**
 * The shopper pages (3DS challenge, hosted payment page, QR page) answer a browser: every error is
 * an HTML page, an unknown transaction is a 404 whatever the form holds, and the three pages behave
 * alike (docs/cards.md, docs/apm.md, docs/qr.md). The document says exactly that (the conformance check runs
 * over every answer here).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";
import { apmBody } from "./apm.support.js";
import { threeDsBody } from "./payments.body.js";

let s: TestSandbox;
let token: string;

beforeEach(async () => {
  s = makeSandbox();
  token = await s.token();
});
afterEach(async () => {
  await s.close();
});

/** A transaction waiting on each page: its page path. */
async function waitingOn(page: "3ds" | "hpp" | "qr"): Promise<string> {
  if (page === "3ds") {
    const res = await s.http.post("/api/v1/payments/card").set("authorization", token).send(threeDsBody("http://127.0.0.1:9/cb"));
    expect(res.body.transactionStatus).toBe("CUSTOMER_VERIFICATION");
    return `/sandbox/3ds/${res.body.transactionId}`;
  }
  const method = page === "hpp" ? "EXTERNAL_HPP_EFT" : "UPI_QR";
  const res = await s.http.post("/api/v1/payments/apm").set("authorization", token).send(apmBody(method));
  expect(res.body.transactionStatus).toBe("PENDING");
  return `/sandbox/${page}/${res.body.transactionId}`;
}

const PAGES = ["3ds", "hpp", "qr"] as const;

describe.each(PAGES)("the %s page", (page) => {
  it("answers a post without an outcome with an HTML 400 naming the field, and changes nothing", async () => {
    const path = await waitingOn(page);
    const res = await s.http.post(path).type("form").send({});
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.text).toContain("outcome");
    expect((await s.http.get(path)).status).toBe(200);
  });

  it("answers a bad outcome with an HTML 400", async () => {
    const path = await waitingOn(page);
    const res = await s.http.post(path).type("form").send({ outcome: "maybe" });
    expect(res.status).toBe(400);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
  });

  it("answers an unknown id with an HTML 404, whatever the form holds", async () => {
    for (const form of [{ outcome: "success" }, {}, { outcome: "maybe" }]) {
      const res = await s.http.post(`/sandbox/${page}/tx_nope`).type("form").send(form);
      expect(res.status, JSON.stringify(form)).toBe(404);
      expect(res.headers["content-type"]).toMatch(/^text\/html/);
    }
    const get = await s.http.get(`/sandbox/${page}/tx_nope`);
    expect(get.status).toBe(404);
    expect(get.headers["content-type"]).toMatch(/^text\/html/);
  });

  it("answers a body that is not a form with an HTML 4xx", async () => {
    const path = await waitingOn(page);
    const res = await s.http.post(path).set("content-type", "application/json").send('{"outcome":"success"}');
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
  });
});

describe("the document", () => {
  it("says text/html for every 4xx of the three pages' form posts", async () => {
    const doc = (await s.http.get("/openapi.json")).body;
    for (const page of PAGES) {
      const responses = doc.paths[`/sandbox/${page}/{id}`].post.responses;
      for (const [status, r] of Object.entries(responses as Record<string, { content?: object }>)) {
        if (status.startsWith("4")) expect(Object.keys(r.content ?? {}), `${page} ${status}`).toEqual(["text/html"]);
      }
      expect(responses["404"]).toBeDefined();
    }
  });
});
