import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";

let s: TestSandbox;
afterEach(() => s?.close());

describe("the error envelope", () => {
  it("names the missing or invalid field", async () => {
    s = makeSandbox();
    const cases: Array<[unknown, string]> = [
      [{ merchantSecret: "x" }, "Missing required field: merchantKey"],
      [{ merchantKey: "x" }, "Missing required field: merchantSecret"],
      [{ merchantKey: 5, merchantSecret: "x" }, "Invalid field: merchantKey"],
      [{ merchantKey: "", merchantSecret: "x" }, "Invalid field: merchantKey"],
      [[], "Invalid field: body"],
    ];
    for (const [body, message] of cases) {
      const res = await s.http.post("/api/v1/auth").send(body as object);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorMessage: message });
    }
  });

  it("answers malformed JSON with 400", async () => {
    s = makeSandbox();
    const res = await s.http.post("/api/v1/auth").set("Content-Type", "application/json").send('{"merchantKey":');
    expect(res.status).toBe(400);
    expect(res.body.errorMessage).toMatch(/Malformed JSON/);
  });

  it("answers a non-JSON body with a 4xx envelope", async () => {
    s = makeSandbox();
    const res = await s.http.post("/api/v1/auth").set("Content-Type", "text/plain").send("merchantKey=x");
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(typeof res.body.errorMessage).toBe("string");
  });

  it("answers a body of another media type with 415 naming those its route takes (docs/api.md#errors)", async () => {
    s = makeSandbox();
    const cases: Array<[string, string]> = [
      ["/api/v1/auth", "application/json"],
      ["/_sandbox/reset", "application/json"],
      ["/_sandbox/scenarios", "application/json, application/yaml or text/yaml"],
    ];
    for (const [path, types] of cases) {
      const res = await s.http.post(path).set("Content-Type", "application/octet-stream").send(Buffer.from("x"));
      expect(res.status, path).toBe(415);
      expect(res.body.errorMessage, path).toBe(`Unsupported Media Type: send Content-Type: ${types}`);
    }
    // a shopper page's form: its 415 is a page (docs/cards.md#3ds-challenge), naming the form's type
    const page = await s.http.post("/sandbox/3ds/tx_0000000000000000000x").set("Content-Type", "application/json").send("{}");
    expect(page.status).toBe(415);
    expect(page.text).toContain("Unsupported Media Type: send Content-Type: application/x-www-form-urlencoded");
  });

  it("answers a body over 1 MiB with 413", async () => {
    s = makeSandbox();
    const res = await s.http
      .post("/api/v1/auth")
      .set("Content-Type", "application/json")
      .send(JSON.stringify({ merchantKey: "x".repeat(1024 * 1024 + 10), merchantSecret: "y" }));
    expect(res.status).toBe(413);
    expect(res.body.errorMessage).toMatch(/too large/);
  });

  it("answers unknown routes with a JSON 404", async () => {
    s = makeSandbox();
    const res = await s.http.get("/no/such/route");
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ errorMessage: "Not found: GET /no/such/route" });
  });

  it("echoes X-Request-Id, or makes one", async () => {
    s = makeSandbox();
    const mine = await s.http.get("/_sandbox/health").set("X-Request-Id", "abc-123");
    expect(mine.headers["x-request-id"]).toBe("abc-123");
    const made = await s.http.get("/_sandbox/health");
    expect(made.headers["x-request-id"]).toMatch(/\S{8,}/);
  });
});
