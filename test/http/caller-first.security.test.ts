/**
 * Who is asking is judged before anything about the request (docs/control-plane.md#the-admin-token,
 * docs/api.md#errors): with an admin token set, a control-plane call without it gets 401 whatever its
 * body (nested too deep, over 1 MiB, malformed), at the root, in a sandbox, for an unknown sandbox
 * and on the dashboard's actions; the gateway's routes judge their bearer token, and the report its
 * header credentials, before their bodies too. And a missing, a malformed and a wrong admin token
 * are each told apart, none repeating what was sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SNAPSHOT_TYPE } from "../../src/snapshots/snapshot-file.js";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { ORIGIN } from "./dashboard.support.js";

const ADMIN = "s3cret-admin";
const MISSING = "Admin token required: Authorization: Bearer <SANDBOX_ADMIN_TOKEN>";
const MALFORMED = "Malformed Authorization header: expected Bearer <SANDBOX_ADMIN_TOKEN>";
const WRONG = "Wrong admin token: the bearer token does not match SANDBOX_ADMIN_TOKEN";

/** Bodies that are refused for themselves (400, 413) once the caller is let in. */
const BODIES: Record<string, { type: string; text: string }> = {
  "nested 65 deep": { type: "application/json", text: `${"[".repeat(65)}${"]".repeat(65)}` },
  "over 1 MiB": { type: "application/json", text: JSON.stringify({ name: "x".repeat(1024 * 1024) }) },
  malformed: { type: "application/json", text: '{"name": ' },
  "YAML nested 65 deep": { type: "application/yaml", text: `${"[".repeat(65)}${"]".repeat(65)}` },
};

let s: TestServer;
let base: string;

beforeAll(async () => {
  s = makeServer({ config: { adminToken: ADMIN } });
  const created = await s.http.post("/_sandbox/sandboxes").set("authorization", `Bearer ${ADMIN}`).send({});
  expect(created.status).toBe(201);
  base = new URL(created.body.baseUrl).pathname;
});
afterAll(() => s.close());

const clockOf = async (prefix: string) =>
  (await s.http.get(`${prefix}/_sandbox/clock`).set("authorization", `Bearer ${ADMIN}`)).body.now as string;

describe("with an admin token set, the control plane judges its caller before the body", () => {
  const paths = () => [
    "/_sandbox/scenarios",
    "/_sandbox/clock/advance",
    "/_sandbox/reset",
    "/_sandbox/sandboxes",
    `${base}/_sandbox/scenarios`,
    `${base}/_sandbox/clock/advance`,
    "/sandboxes/sbx_unknown/_sandbox/clock/advance",
  ];

  it("401 for a body nested too deep, over 1 MiB or malformed, without the token or with a wrong one; nothing changes", async () => {
    const before = [await clockOf(""), await clockOf(base)];
    for (const path of paths()) {
      for (const [what, { type, text }] of Object.entries(BODIES)) {
        for (const [header, message] of [
          [undefined, MISSING],
          ["Bearer not-the-token", WRONG],
        ] as const) {
          const req = s.http.post(path).set("content-type", type);
          const res = await (header ? req.set("authorization", header) : req).send(text);
          expect([res.status, res.body], `${path}, ${what}, ${header ?? "no token"}`).toEqual([401, { errorMessage: message }]);
        }
      }
    }
    // a snapshot file too, whatever it holds
    const snapshot = await s.http
      .post("/_sandbox/sandboxes")
      .set("content-type", SNAPSHOT_TYPE)
      .send(Buffer.alloc(2 * 1024 * 1024));
    expect([snapshot.status, snapshot.body]).toEqual([401, { errorMessage: MISSING }]);
    expect([await clockOf(""), await clockOf(base)]).toEqual(before);
    expect((await s.http.get("/_sandbox/sandboxes").set("authorization", `Bearer ${ADMIN}`)).body).toHaveLength(1);
    // with the token, the same bodies are judged for themselves
    const deep = await s.http
      .post("/_sandbox/scenarios")
      .set("authorization", `Bearer ${ADMIN}`)
      .type("json")
      .send(BODIES["nested 65 deep"]?.text);
    expect([deep.status, deep.body.errorMessage]).toEqual([400, "Invalid field: body"]);
    const big = await s.http
      .post(`${base}/_sandbox/scenarios`)
      .set("authorization", `Bearer ${ADMIN}`)
      .type("json")
      .send(BODIES["over 1 MiB"]?.text);
    expect([big.status, big.body.errorMessage]).toEqual([413, "Request body too large (limit 1 MiB)"]);
  });

  it("a missing, a malformed and a wrong token get three different 401s, none repeating what was sent", async () => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, MISSING],
      ["", MISSING],
      [ADMIN, MALFORMED],
      [`Basic ${Buffer.from(`admin:${ADMIN}x`).toString("base64")}`, MALFORMED],
      ["Bearer", MALFORMED],
      [`Bearer ${ADMIN}x`, WRONG],
      ["bearer leaked-guess-123", WRONG],
    ];
    for (const prefix of ["", base, "/sandboxes/sbx_unknown"]) {
      for (const [header, message] of cases) {
        const req = s.http.get(`${prefix}/_sandbox/clock`);
        const res = await (header === undefined ? req : req.set("authorization", header));
        expect([res.status, res.body], `${prefix} ${header}`).toEqual([401, { errorMessage: message }]);
        expect(res.text).not.toContain("leaked-guess-123");
        expect(res.text).not.toContain(`${ADMIN}x`);
      }
    }
    expect((await s.http.get(`${base}/_sandbox/clock`).set("authorization", `Bearer ${ADMIN}`)).status).toBe(200);
    expect((await s.http.get("/sandboxes/sbx_unknown/_sandbox/clock").set("authorization", `Bearer ${ADMIN}`)).status).toBe(404);
    expect((await s.http.get(`${base}/_sandbox/health`)).status).toBe(200);
  });

  it("the dashboard's actions: 401 before a body over 1 MiB is read, for a form posted from its own origin without a session", async () => {
    const before = [await clockOf(""), await clockOf(base)];
    for (const path of ["/dashboard/clock/advance", `${base}/dashboard/clock/advance`, "/dashboard/fork"]) {
      const res = await s.http
        .post(path)
        .set("origin", ORIGIN)
        .type("form")
        .send(`by=P1D&pad=${"x".repeat(1024 * 1024)}`);
      expect(res.status, path).toBe(401);
      expect(res.text, path).toContain("Log in first: this dashboard needs the admin token.");
    }
    expect([await clockOf(""), await clockOf(base)]).toEqual(before);
    expect((await s.http.get("/_sandbox/sandboxes").set("authorization", `Bearer ${ADMIN}`)).body).toHaveLength(1);
  });
});

describe("the gateway judges its caller before the body", () => {
  it("a card payment without a valid bearer token: 401 for a body over 1 MiB, nested too deep or malformed", async () => {
    for (const prefix of ["", base]) {
      for (const [what, { type, text }] of Object.entries(BODIES)) {
        for (const [header, message] of [
          [undefined, "Missing Authorization header"],
          ["Bearer not-a-jwt", "Invalid access token"],
        ] as const) {
          const req = s.http.post(`${prefix}/api/v1/payments/card`).set("content-type", type);
          const res = await (header ? req.set("authorization", header) : req).send(text);
          expect([res.status, res.body], `${prefix}, ${what}, ${header ?? "no token"}`).toEqual([401, { errorMessage: message }]);
        }
      }
    }
  });

  it("the report without its merchant key and secret: 401 {error} for a body over 1 MiB, nested too deep or malformed", async () => {
    for (const prefix of ["", base]) {
      for (const [what, { type, text }] of Object.entries(BODIES)) {
        for (const secret of [undefined, "wrong-secret"]) {
          const req = s.http.post(`${prefix}/api/v1/report-generator/s2s`).set("content-type", type);
          const res = await (secret
            ? req.set("x-merchant-key", "sandbox_merchant_key").set("x-merchant-secret", secret)
            : req
          ).send(text);
          expect([res.status, res.body], `${prefix}, ${what}, ${secret ?? "no credentials"}`).toEqual([
            401,
            { error: "Invalid merchant credentials" },
          ]);
        }
      }
    }
    // with them, the body is judged
    const big = await s.http
      .post("/api/v1/report-generator/s2s")
      .set("x-merchant-key", "sandbox_merchant_key")
      .set("x-merchant-secret", "sandbox_merchant_secret")
      .type("json")
      .send(BODIES["over 1 MiB"]?.text);
    expect([big.status, big.body]).toEqual([413, { error: "Request body too large (limit 1 MiB)" }]);
  });
});
