/**
 * `paysandbox coverage` (docs/coverage.md#the-command): the report of a sandbox of a real listener in
 * every format, JUnit valid by the same schema as the runner's; `--require` and `--fail-under` exit 1
 * listing what is missing with its hint; bad flags and checklists exit 2 naming them; `--recipe`
 * prints a steps file that `paysandbox run` plays. And `paysandbox run --coverage --require` on the
 * scenario library: it meets checklists/go-live.yaml.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { validateXML } from "xmllint-wasm";
import { coverageCommand } from "../../src/cli/coverage.js";
import { catalogue } from "../../src/coverage/catalogue.js";
import { loadYaml } from "../../src/platform/nesting.js";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { ROOT } from "../helpers/server.js";
import { cardPaymentBody } from "./payments.body.js";
import { runCli, scenarioFile } from "./runner.support.js";

const XSD = readFileSync(join(ROOT, "test/helpers/junit.xsd"), "utf8");
const dir = mkdtempSync(join(tmpdir(), "paysandbox-coverage-"));

let server: TestServer | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  await server?.close();
  server = undefined;
  close = undefined;
});

function io() {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => out.push(t), err: (l: string) => err.push(l) } };
}

/** A server with one sandbox that made one approved and one declined payment; its URL and the sandbox. */
async function served(): Promise<{ url: string; id: string }> {
  server = makeServer();
  const sb = await server.create();
  const token = await server.token(sb.base);
  for (const number of ["4111111111111111", "4000000000000002"]) {
    await server.http
      .post(`${sb.base}/api/v1/payments/card`)
      .set("authorization", token)
      .send(cardPaymentBody({ card: { number } }))
      .expect(200);
  }
  const http = createServer(getRequestListener(server.server.fetch));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  close = () => new Promise((resolve) => http.close(() => resolve()));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, id: sb.id };
}

function checklist(ids: unknown): string {
  const file = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, loadYaml().stringify(ids));
  return file;
}

describe("paysandbox coverage", () => {
  it.each([
    [{ format: "xml" }, "--format: expected one of table, json, markdown, junit"],
    [{ target: "localhost:8080" }, "--target: expected an http(s) URL"],
    [{ sandbox: "nope" }, "--sandbox: expected a sandbox id"],
    [{ failUnder: "ten" }, "--fail-under: expected a percentage from 0 to 100"],
    [{ failUnder: "101" }, "--fail-under: expected a percentage from 0 to 100"],
    [{ require: "/nope/list.yaml" }, "--require: /nope/list.yaml: no such file"],
    [{ recipe: "card.payment.nope" }, "--recipe: card.payment.nope is not a behaviour of the catalogue"],
  ])("%o → exit 2 naming the flag", async (opts, message) => {
    const t = io();
    expect(await coverageCommand(opts, t.io)).toBe(2);
    expect(t.err.join("\n")).toContain(message);
  });

  it("a checklist naming an id the catalogue lacks → exit 2 naming it and the nearest", async () => {
    const t = io();
    const file = checklist(["card.payment.succeed", "card.payment.failed.decline-55"]);
    expect(await coverageCommand({ require: file }, t.io)).toBe(2);
    expect(t.err.join("\n")).toContain(
      `${file}: [1]: card.payment.failed.decline-55 is not a behaviour of the catalogue (did you mean card.payment.failed.decline-5?)`,
    );
    const u = io();
    expect(await coverageCommand({ require: checklist({ name: "x" }) }, u.io)).toBe(2);
    expect(u.err.join("\n")).toContain("expected a list of behaviour ids");
  });

  it("a server it cannot reach, or an unknown sandbox → exit 1 saying why", async () => {
    const t = io();
    expect(await coverageCommand({ target: "http://127.0.0.1:9" }, t.io)).toBe(1);
    expect(t.err.join("\n")).toContain("cannot reach http://127.0.0.1:9");
    const { url } = await served();
    const u = io();
    expect(await coverageCommand({ target: url, sandbox: "sbx_unknown0000000000" }, u.io)).toBe(1);
    expect(u.err.join("\n")).toContain("answered 404: Sandbox not found: sbx_unknown0000000000");
  });

  it("table, markdown and json: what the sandbox saw; its root saw nothing", async () => {
    const { url, id } = await served();
    const t = io();
    expect(await coverageCommand({ target: url, sandbox: id }, t.io)).toBe(0);
    const table = t.out.join("");
    expect(table).toMatch(/^Payment-behaviour coverage: 2 of \d+ behaviours seen \(0\.\d%\)\n/);
    expect(table).toMatch(/ {2}card\.payment\.succeed +1× +tx_\S+ at 2026-01-15T12:00:00\.000Z\n/);
    expect(table).toContain("card.payment.failed.decline-2");
    const m = io();
    expect(await coverageCommand({ target: url, sandbox: id, format: "markdown" }, m.io)).toBe(0);
    expect(m.out.join("")).toMatch(/\| ✓ \| `card\.payment\.succeed` Card payment SUCCEED \| 1 \| tx_\S+ at /);
    expect(m.out.join("")).toContain(
      "| ✗ | `card.3ds.passed` 3DS challenge passed | 0 | Pay by card 4000000000003220, then answer the 3DS challenge: success. |",
    );
    const j = io();
    expect(await coverageCommand({ target: url, format: "json" }, j.io)).toBe(0);
    const root = JSON.parse(j.out.join(""));
    expect(root.seen).toBe(0);
    expect(root.behaviours).toHaveLength(catalogue().length);
  });

  it("--require: exit 1 listing the behaviours never seen, each with its hint, in every format; JUnit valid", async () => {
    const { url, id } = await served();
    const file = checklist([
      "card.payment.succeed",
      "card.payment.failed.decline-2",
      "refund.full",
      "webhook.delivered.after-retries",
    ]);
    const t = io();
    expect(await coverageCommand({ target: url, sandbox: id, require: file }, t.io)).toBe(1);
    const out = t.out.join("");
    expect(out).toContain(
      `Required by ${file}: 2 of 4 seen\nMissing:\n  refund.full  A refund of the whole order amount succeeded\n`,
    );
    expect(out).toContain("      hint: Pay by card, then refund all of it, then advance the clock by PT1M.\n");
    expect(out).toContain("  webhook.delivered.after-retries  ");
    const x = io();
    expect(await coverageCommand({ target: url, sandbox: id, require: file, format: "junit" }, x.io)).toBe(1);
    const xml = x.out.join("");
    const r = await validateXML({ xml: [{ fileName: "coverage.xml", contents: xml }], schema: [XSD] });
    expect(r.errors.map((e) => e.rawMessage)).toEqual([]);
    expect(xml).toMatch(/<testsuites name="paysandbox coverage" tests="4" failures="2" /);
    expect(xml).toContain('<testcase name="card.payment.succeed: Card payment SUCCEED" classname="coverage.card" time="0"/>');
    expect(xml).toContain(
      '<failure message="never seen: A refund of the whole order amount succeeded" type="BehaviourNotSeen">hint: Pay by card, then refund all of it, then advance the clock by PT1M.</failure>',
    );
    expect(x.err.join("\n")).toContain("2 behaviour(s) required by");
    // met: exit 0
    const y = io();
    expect(await coverageCommand({ target: url, sandbox: id, require: checklist(["card.payment.succeed"]) }, y.io)).toBe(0);
  });

  it("--fail-under: exit 1 under the share, 0 at it; JUnit without a checklist skips what was never seen", async () => {
    const { url, id } = await served();
    const t = io();
    expect(await coverageCommand({ target: url, sandbox: id, failUnder: "50" }, t.io)).toBe(1);
    expect(t.out.join("")).toContain("Coverage is under 50% (--fail-under)");
    const u = io();
    expect(await coverageCommand({ target: url, sandbox: id, failUnder: "0.5" }, u.io)).toBe(0);
    const x = io();
    expect(await coverageCommand({ target: url, sandbox: id, failUnder: "50", format: "junit" }, x.io)).toBe(1);
    const xml = x.out.join("");
    const r = await validateXML({ xml: [{ fileName: "coverage.xml", contents: xml }], schema: [XSD] });
    expect(r.errors.map((e) => e.rawMessage)).toEqual([]);
    expect(xml).toContain(`tests="${catalogue().length + 1}" failures="1"`);
    expect(xml).toContain('<skipped message="never seen; hint: ');
    expect(xml).toContain('<failure message="0.8% seen" type="CoverageUnder">');
  });

  it("--recipe prints a steps file that paysandbox run plays, and its run covers the behaviour", async () => {
    const t = io();
    const out = join(dir, "recipe.yaml");
    expect(await coverageCommand({ recipe: "refund.refused.over-remainder", out }, t.io)).toBe(0);
    const text = readFileSync(out, "utf8");
    expect(text).toContain("name: coverage-refund.refused.over-remainder");
    const r = await runCli([out], { coverage: true, require: checklist(["refund.refused.over-remainder"]) });
    expect(r.out).toContain("Required by");
    expect(r.out).toMatch(/: 1 of 1 seen\n/);
    expect(r.code).toBe(0);
  });
});

describe("paysandbox run --coverage", () => {
  it("the scenario library meets the go-live checklist, merged over every file's sandbox", async () => {
    const library = readdirSync(join(ROOT, "scenarios"))
      .filter((f) => f.endsWith(".yaml"))
      .map((f) => join(ROOT, "scenarios", f));
    const r = await runCli(library, { coverage: true, require: join(ROOT, "checklists/go-live.yaml") });
    expect(r.err).toBe("");
    expect(r.out).toMatch(/Required by \S+go-live\.yaml: (\d+) of \1 seen\n/);
    expect(r.out).not.toContain("Missing:");
    expect(r.out.trimEnd().split("\n").at(-1)).toMatch(/^\d+ passed, 0 failed$/);
    expect(r.code).toBe(0);
  }, 120_000);

  it("a required behaviour no file caused → exit 1 with its hint, though every step passed; json carries the check", async () => {
    const file = scenarioFile({
      name: "one-payment",
      startTime: "2026-03-01T09:00:00Z",
      steps: [
        { request: "POST /api/v1/payments/card", body: cardPaymentBody({ requestId: "${uuid}" }), expect: { status: 200 } },
      ],
    });
    const list = checklist(["card.payment.succeed", "card.3ds.failed"]);
    const r = await runCli([file], { require: list });
    expect(r.out).toContain("Missing:\n  card.3ds.failed  3DS challenge failed (declineCode 3)\n      hint: ");
    expect(r.out.trimEnd().split("\n").at(-1)).toBe("1 passed, 0 failed");
    expect(r.code).toBe(1);
    const j = await runCli([file], { require: list, reporter: "json" });
    const doc = JSON.parse(j.out);
    expect(doc.coverage.check.required.missing.map((b: { id: string }) => b.id)).toEqual(["card.3ds.failed"]);
    expect(doc.coverage.behaviours.find((b: { id: string }) => b.id === "card.payment.succeed").first.file).toBe(file);
    expect(j.code).toBe(1);
  });
});
