/**
 * `paysandbox run` when things go wrong (docs/run.md): each step kind failing with expected vs
 * actual, exit 1 with a JUnit failure, and a missing or broken file → exit 2 naming the file and path.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateXML } from "xmllint-wasm";
import { ROOT } from "../helpers/server.js";
import { apmBody } from "./apm.support.js";
import { payment, runCli, runDoc, START, scenarioFile, threeDsPayment } from "./runner.support.js";

/** A port nothing listens on (the OS picked it free a moment ago). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === "object" && addr ? addr.port : 0));
    });
  });

const XSD = readFileSync(join(ROOT, "test/helpers/junit.xsd"), "utf8");

async function validJunit(xml: string) {
  const r = await validateXML({ xml: [{ fileName: "report.xml", contents: xml }], schema: [XSD] });
  expect(r.errors.map((e) => e.rawMessage)).toEqual([]);
  expect(r.valid).toBe(true);
}

describe("paysandbox run: steps that fail", () => {
  it("a request's wrong status or body fails with expected vs actual and the response; later steps are skipped", async () => {
    const r = await runDoc({
      name: "wrong",
      startTime: START,
      steps: [
        { request: "POST /api/v1/payments/card", body: payment(), expect: { status: 201 } },
        { request: "GET /_sandbox/clock" },
      ],
    });
    expect(r.steps[0]).toMatchObject({ status: "failed", message: "status: expected 201, got 200", expected: 201, actual: 200 });
    expect(r.steps[0]?.response).toMatch(/^\{"transactionId":"tx_\w+","transactionStatus":"SUCCEED"\}$/);
    expect(r.steps[1]).toMatchObject({ status: "skipped" });

    const b = await runDoc({
      name: "wrong-body",
      steps: [
        {
          request: "POST /api/v1/payments/card",
          body: payment(),
          expect: { body: { transactionStatus: "FAILED", declineCode: 2 } },
        },
      ],
    });
    expect(b.steps[0]).toMatchObject({
      status: "failed",
      message: 'body.transactionStatus: expected "FAILED", got "SUCCEED"',
      expected: "FAILED",
      actual: "SUCCEED",
    });

    const h = await runDoc({
      name: "wrong-header",
      steps: [{ request: "GET /_sandbox/clock", expect: { headers: { "content-type": "text/html" } } }],
    });
    expect(h.steps[0]?.message).toBe('headers["content-type"]: expected "text/html", got "application/json"');
  });

  it("a reference to a field the saved body lacks fails the step, naming it", async () => {
    const r = await runDoc({
      name: "missing-field",
      steps: [{ request: "GET /_sandbox/clock", save: "c" }, { request: "GET /api/v1/payments/card/status/${c.transactionId}" }],
    });
    expect(r.steps[1]).toMatchObject({
      status: "failed",
      message: '${c.transactionId}: the body saved as "c" has no transactionId',
    });
  });

  it("an advance the sandbox refuses fails", async () => {
    const r = await runDoc({ name: "too-far", steps: [{ advance: "P101Y" }] });
    expect(r.steps[0]).toMatchObject({ status: "failed", message: "POST /_sandbox/clock/advance answered 400" });
    expect(r.steps[0]?.response).toMatch(/at most 100 years/);
  });

  it("threeDS on an unknown or already answered transaction fails with the page's answer", async () => {
    const r = await runDoc({
      name: "three-ds-twice",
      startTime: START,
      steps: [
        { request: "POST /api/v1/payments/card", body: threeDsPayment(), save: "p" },
        { threeDS: { transactionId: "${p.transactionId}", outcome: "success" } },
        { threeDS: { transactionId: "${p.transactionId}", outcome: "failure" } },
      ],
    });
    expect(r.steps[2]).toMatchObject({ status: "failed" });
    expect(r.steps[2]?.message).toMatch(/^the 3DS challenge page GET \/sandbox\/3ds\/tx_\w+ answered 409$/);
    expect(r.steps[2]?.response).toMatch(/is SUCCEED; this challenge is closed/);

    const u = await runDoc({ name: "three-ds-unknown", steps: [{ threeDS: { transactionId: "tx_nope", outcome: "success" } }] });
    expect(u.steps[0]?.message).toBe("the 3DS challenge page GET /sandbox/3ds/tx_nope answered 404");
  });

  it("hpp fails clearly when the transaction has no hosted payment page", async () => {
    const r = await runDoc({
      name: "hpp-missing",
      steps: [{ hpp: { transactionId: "tx_nope", outcome: "success", fields: { accountNumber: "1234" } } }],
    });
    expect(r.steps[0]).toMatchObject({
      status: "failed",
      message: "the hosted payment page GET /sandbox/hpp/tx_nope answered 404",
    });
  });

  it("a page step expecting a refusal posts as given and checks the status; a field the page lacks is named when the post is refused", async () => {
    const r = await runDoc({
      name: "pages-refused",
      startTime: START,
      steps: [
        { request: "POST /api/v1/payments/card", body: threeDsPayment(), save: "p" },
        { threeDS: { transactionId: "${p.transactionId}", outcome: "success" } },
        // a second press of the page still on the screen: the page itself is closed (409)
        { threeDS: { transactionId: "${p.transactionId}", outcome: "failure" }, expect: { status: 409 } },
        // a typo in a field name: the post lacks the field the page asks for, and the message names it
        {
          request: "POST /api/v1/payments/apm",
          body: apmBody("EXTERNAL_HPP_EFT", { requestId: "${uuid}", checksum: "${checksum}", callbackUrl: "${callbackUrl}" }),
          expect: { body: { transactionStatus: "PENDING" } },
          save: "eft",
        },
        { hpp: { transactionId: "${eft.transactionId}", outcome: "success", fields: { acountNumber: "1234567" } } },
      ],
    });
    expect(r.steps.slice(0, 4).map((s) => [s.status, s.message])).toEqual(Array(4).fill(["passed", undefined]));
    // (expected refused, but the post is accepted: below, the step fails on the status)
    expect(r.steps[2]?.summary).toMatch(/^threeDS failure: POST \/sandbox\/3ds\/tx_\w+ → 409$/);
    expect(r.steps[4]?.status).toBe("failed");
    expect(r.steps[4]?.message).toBe(
      "the hosted payment page form answered 400 (the page has no field acountNumber; it asks for: accountHolderName, institutionNumber, transitNumber, accountNumber)",
    );

    const wrong = await runDoc({
      name: "refusal-expected",
      startTime: START,
      steps: [
        { request: "POST /api/v1/payments/card", body: threeDsPayment(), save: "p" },
        { threeDS: { transactionId: "${p.transactionId}", outcome: "success" }, expect: { status: 409 } },
      ],
    });
    expect(wrong.steps[1]).toMatchObject({ status: "failed", message: "the 3DS challenge page form answered 303, expected 409" });
  });

  it("webhook fails when no delivery matches, showing the newest one's difference", async () => {
    const r = await runDoc({
      name: "webhook-mismatch",
      startTime: START,
      steps: [
        { request: "POST /api/v1/payments/card", body: payment({ callbackUrl: "${callbackUrl}" }), save: "p" },
        { webhook: { transactionId: "${p.transactionId}", body: { transactionStatus: "FAILED" } } },
      ],
    });
    expect(r.steps[1]?.status).toBe("failed");
    expect(r.steps[1]?.message).toMatch(
      /^none of the 1 deliveries for transactionId=tx_\w+ matches \(newest: body.transactionStatus is "SUCCEED"\)$/,
    );
    expect(r.steps[1]).toMatchObject({ expected: "FAILED", actual: "SUCCEED" });

    const none = await runDoc({
      name: "webhook-none",
      steps: [
        { request: "POST /api/v1/payments/card", body: payment(), save: "p" },
        { webhook: { transactionId: "${p.transactionId}" } },
      ],
    });
    expect(none.steps[1]?.message).toMatch(/^no delivery in the journal for transactionId=tx_\w+$/);
  });
});

describe("paysandbox run: exit status and reports", () => {
  it("exit 0 when every step passed; the last line is `N passed, 0 failed`", async () => {
    const file = scenarioFile({ name: "ok", steps: [{ request: "GET /_sandbox/health", expect: { status: 200 } }] });
    const { code, out } = await runCli([file]);
    expect(code).toBe(0);
    expect(out).toMatch(/^ {2}pass {2}\[0\] GET \/_sandbox\/health {2}GET \/_sandbox\/health → 200 {2}\(\d+ ms\)$/m);
    expect(out.trimEnd().split("\n").at(-1)).toBe("1 passed, 0 failed");
  });

  it("a wrong expectation → exit 1, expected vs actual printed, and a JUnit failure valid against the JUnit schema", async () => {
    const good = scenarioFile({ name: "good", steps: [{ request: "GET /_sandbox/health" }] });
    const bad = scenarioFile({
      name: "bad",
      startTime: START,
      steps: [
        {
          name: "declines <here> & there",
          request: "POST /api/v1/payments/card",
          body: payment(),
          expect: { body: { transactionStatus: "FAILED" } },
        },
        { advance: "P1D" },
      ],
    });
    const junit = join(scenarioFile("x: 1").replace(/[^/]+$/, ""), "reports", "junit.xml");
    const { code, out } = await runCli([good, bad], { junit });
    expect(code).toBe(1);
    expect(out).toContain('        body.transactionStatus: expected "FAILED", got "SUCCEED"');
    expect(out).toContain('        expected: "FAILED"\n        actual:   "SUCCEED"\n        response: {"transactionId":"tx_');
    expect(out).toMatch(/ {2}skip {2}\[1\] advance P1D/);
    expect(out.trimEnd().split("\n").slice(-2)).toEqual(["1 step(s) skipped after a failure", "1 passed, 1 failed"]);

    const xml = readFileSync(junit, "utf8");
    await validJunit(xml);
    expect(xml.match(/<testsuite /g)).toHaveLength(2);
    expect(xml).toMatch(
      /<testsuite name="bad" package="[^"]+\.json" id="1" hostname="[^"]+" timestamp="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d" tests="2" failures="1" errors="0" skipped="1"/,
    );
    expect(xml).toContain('<testcase name="[0] declines &lt;here&gt; &amp; there" classname="bad"');
    expect(xml).toContain(
      '<failure message="body.transactionStatus: expected &quot;FAILED&quot;, got &quot;SUCCEED&quot;" type="StepFailure">',
    );
    expect(xml).toContain('<skipped message="skipped after a failed step"/>');
  });

  it("on a terminal, a live progress line shows the running step and is cleared before its result", async () => {
    const file = scenarioFile({ name: "tty", steps: [{ name: "first", request: "GET /_sandbox/health" }, { advance: "P1D" }] });
    const { code, out } = await runCli([file], {}, true);
    expect(code).toBe(0);
    expect(out).toContain("\r\x1b[K  … [1/2] first\r\x1b[K  pass  [0] first");
    expect(out).toContain("\r\x1b[K  … [2/2] advance P1D\r\x1b[K  pass  [1] advance P1D");
    const piped = await runCli([file]);
    expect(piped.out).not.toContain("\x1b");
  });

  it("an unreachable --target fails each file (exit 1), reported as JUnit errors", async () => {
    const file = scenarioFile({ name: "far", steps: [{ request: "GET /_sandbox/health" }, { advance: "P1D" }] });
    const junit = join(scenarioFile("x: 1").replace(/[^/]+$/, ""), "far.xml");
    const port = await freePort();
    const { code, out } = await runCli([file], { target: `http://127.0.0.1:${port}`, junit });
    expect(code).toBe(1);
    expect(out).toContain(
      `${file}: could not run: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n1 file(s) could not run\n`,
    );
    expect(out.trimEnd().split("\n").at(-1)).toBe("0 passed, 0 failed");
    const xml = readFileSync(junit, "utf8");
    await validJunit(xml);
    expect(xml).toContain('errors="2"');
    expect(xml).toContain(`<error message="cannot reach http://127.0.0.1:${port}: ECONNREFUSED" type="FileError">`);
  });

  it("--reporter json prints the whole run as one document", async () => {
    const file = scenarioFile({ name: "json", steps: [{ request: "GET /_sandbox/health", expect: { status: 418 } }] });
    const { code, out } = await runCli([file], { reporter: "json" });
    expect(code).toBe(1);
    const doc = JSON.parse(out);
    expect(doc).toMatchObject({
      passed: 0,
      failed: 1,
      files: [
        {
          file,
          scenario: "json",
          steps: [{ index: 0, status: "failed", message: "status: expected 418, got 200", expected: 418, actual: 200 }],
        },
      ],
    });
  });

  it.each([
    [
      {
        name: "x",
        steps: [
          { request: "GET /a" },
          { request: "GET /b" },
          { request: "GET /c" },
          { request: "GET /d", expect: { status: "200" } },
        ],
      },
      /: steps\[3\]\.expect\.status: Invalid input: expected number, received string$/,
    ],
    [{ name: "x", steps: [{ request: "FETCH /a" }] }, /steps\[0\]\.request: expected "METHOD \/path"/],
    [{ name: "x", steps: [{ request: "GET /a", colour: 1 }] }, /steps\[0\]\.colour: unknown key/],
    [
      { name: "x", steps: [{ request: "GET /a", advance: "P1D" }] },
      /steps\[0\]\.advance: a step does one thing: request and advance given/,
    ],
    [{ name: "x", steps: [{ name: "nothing" }] }, /steps\[0\]: a step needs one of request, advance, threeDS, hpp, qr, webhook/],
    [{ name: "x", steps: [{ advance: "soon" }] }, /steps\[0\]\.advance: expected an ISO 8601 duration/],
    [{ name: "x", steps: [{ advance: "P1D", body: {} }] }, /steps\[0\]\.body: not allowed in a advance step/],
    [{ name: "x", steps: [{ threeDS: { transactionId: "t", outcome: "maybe" } }] }, /steps\[0\]\.threeDS\.outcome/],
    [
      { name: "x", steps: [{ webhook: { body: {} } }] },
      /steps\[0\]\.webhook\.transactionId: give transactionId or subscriptionId/,
    ],
    [{ name: "x", steps: [{ request: "GET /a", save: "uuid" }] }, /steps\[0\]\.save: reserved/],
    [
      { name: "x", steps: [{ request: "GET /a/${p.id}" }, { request: "GET /b", save: "p" }] },
      /steps\[0\]\.request: \$\{p\.id\}: no earlier step saves "p"/,
    ],
    [
      { name: "x", steps: [{ request: "GET /a", body: { deep: ["${q}"] } }] },
      /steps\[0\]\.body\.deep\[0\]: \$\{q\}: no earlier step saves "q"/,
    ],
    [
      { name: "x", steps: [{ as: "nobody", request: "GET /a" }] },
      /steps\[0\]\.as: not a merchant of this file nor the built-in one/,
    ],
    [{ name: "x", startTime: "tomorrow" }, /startTime: expected an ISO 8601 date-time/],
    [{ name: "x", merchants: [{ merchantKey: "k" }] }, /merchants\[0\]\.merchantSecret/],
  ])("an invalid file → exit 2 naming the file and the path (%#)", async (doc, message) => {
    const good = scenarioFile({ name: "fine", steps: [{ request: "GET /_sandbox/health" }] });
    const file = scenarioFile(doc);
    const { code, out, err } = await runCli([good, file]);
    expect(code).toBe(2);
    expect(err).toContain(`paysandbox run: ${file}: `);
    expect(err.trim()).toMatch(message);
    expect(out).toBe(""); // nothing ran
  });

  it.each([
    [{ parallel: "0" }, 'paysandbox run: --parallel: expected a whole number from 1 to 64, got "0"'],
    [{ parallel: "two" }, 'paysandbox run: --parallel: expected a whole number from 1 to 64, got "two"'],
    [{ parallel: "65" }, 'paysandbox run: --parallel: expected a whole number from 1 to 64, got "65"'],
    [{ parallel: "1.5" }, 'paysandbox run: --parallel: expected a whole number from 1 to 64, got "1.5"'],
    [{ keep: true }, "paysandbox run: --keep: keeps the sandbox made on the --target server; give --target URL"],
    [{ target: "localhost:8080" }, 'paysandbox run: --target: expected an http(s) URL, got "localhost:8080"'],
  ])("a bad option %j → exit 2 naming it, and nothing runs", async (opts, message) => {
    const file = scenarioFile({ name: "fine", steps: [{ request: "GET /_sandbox/health" }] });
    const { code, out, err } = await runCli([file], opts);
    expect(code).toBe(2);
    expect(err.trim()).toBe(message);
    expect(out).toBe("");
  });

  it("a missing file or broken YAML → exit 2 naming the file", async () => {
    const missing = await runCli(["/no/such/scenario.yaml"]);
    expect(missing).toMatchObject({ code: 2, out: "" });
    expect(missing.err.trim()).toBe("paysandbox run: /no/such/scenario.yaml: no such file");
    const broken = scenarioFile("name: x\nsteps: [ { request: GET /a\n");
    const b = await runCli([broken]);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(new RegExp(`^paysandbox run: ${broken}: cannot parse: `));
  });
});
