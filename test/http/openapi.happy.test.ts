/**
 * /openapi.json says what the sandbox does (docs/api.md): the control plane's security as it is,
 * nullable where null is sent, decline codes and dates as they are; and the conformance check that
 * every HTTP suite runs (test/helpers/conformance.ts) does find a mismatch.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { conforming, takeMismatches } from "../helpers/conformance.js";
import { makeSandbox, type TestSandbox } from "../helpers/harness.js";

let s: TestSandbox;
// biome-ignore lint/suspicious/noExplicitAny: a JSON document walked by known paths; a wrong path fails the test.
let doc: any;
beforeAll(async () => {
  s = makeSandbox();
  doc = (await s.http.get("/openapi.json")).body;
});
afterAll(async () => {
  await s.close();
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    // biome-ignore lint/suspicious/noExplicitAny: see doc
    Object.entries(ops as Record<string, any>).map(([method, op]) => ({ path, method, op })),
  );

describe("/openapi.json", () => {
  it("documents the control plane's admin token as optional, and health as open", async () => {
    const control = operations().filter((o) => o.path.startsWith("/_sandbox/") && o.path !== "/_sandbox/health");
    expect(control.length).toBeGreaterThan(10);
    for (const { path, method, op } of control) expect(op.security, `${method} ${path}`).toEqual([{ AdminToken: [] }, {}]);
    expect(doc.paths["/_sandbox/health"].get.security).toEqual([]);
    expect(doc.components.securitySchemes.AdminToken.description).toMatch(/only when/);
    // and it is so: no token, no 401
    expect((await s.http.get("/_sandbox/clock")).status).toBe(200);
  });

  it("documents a subscription's plan.endDate as nullable, with no allOf that would refuse the null", () => {
    const plan = doc.components.schemas.SubscriptionPlan;
    expect(plan.allOf).toBeUndefined();
    expect(plan.properties.endDate.type).toEqual(["string", "null"]);
    expect(plan.properties.endDate.format).toBe("date");
  });

  it("gives declineCode its enum of fixtures/decline-codes.json, and times their format", () => {
    const decline =
      doc.components.schemas.CardPaymentResponse?.properties.declineCode ??
      doc.components.schemas.RefundResponse.properties.declineCode;
    expect(decline.enum).toEqual(expect.arrayContaining([1, 2, 3, 5, 18, 79]));
    expect(decline.enum).not.toContain(19);
    expect(doc.components.schemas.RefundInfo.properties.createdAt.format).toBe("date-time");
    expect(doc.components.schemas.ReportRequest.properties.dateFrom.pattern).toBeDefined();
  });

  it("documents 413, 415 and the fault statuses where middleware answers them", () => {
    const card = doc.paths["/api/v1/payments/card"].post.responses;
    for (const status of ["400", "413", "415", "429", "500", "502", "503"]) expect(card[status], status).toBeDefined();
    const report = doc.paths["/api/v1/report-generator/s2s"].post.responses;
    expect(report["415"].content["application/json"].schema.$ref).toBe("#/components/schemas/ReportError");
  });
});

describe("the conformance check", () => {
  it("reports a body that does not validate, with the operation, status and JSON pointer", async () => {
    const fetch = conforming((req: Request) =>
      new URL(req.url).pathname === "/openapi.json"
        ? Response.json(doc)
        : Response.json({ status: "fine" }, { headers: { "content-type": "application/json" } }),
    );
    await fetch(new Request("http://sandbox.test/_sandbox/health"));
    const found = await takeMismatches();
    expect(found).toHaveLength(1);
    expect(found[0]?.operation).toBe("GET /_sandbox/health");
    expect(found[0]?.status).toBe(200);
    expect(found[0]?.problems.join()).toContain("/status");
  });

  it("reports an undocumented status and an undocumented content type", async () => {
    const fetch = conforming((req: Request) =>
      new URL(req.url).pathname === "/openapi.json"
        ? Response.json(doc)
        : new URL(req.url).pathname === "/_sandbox/clock"
          ? new Response("<p>no</p>", { status: 200, headers: { "content-type": "text/html" } })
          : Response.json({ errorMessage: "x" }, { status: 418 }),
    );
    await fetch(new Request("http://sandbox.test/_sandbox/clock"));
    await fetch(new Request("http://sandbox.test/api/v1/payments/card", { method: "POST" }));
    const found = (await takeMismatches()).map((m) => `${m.operation} ${m.status}: ${m.problems.join()}`).sort();
    expect(found).toEqual([
      expect.stringMatching(/^GET \/_sandbox\/clock 200: content type "text\/html" not documented/),
      expect.stringMatching(/^POST \/api\/v1\/payments\/card 418: status 418 not documented/),
    ]);
  });
});
