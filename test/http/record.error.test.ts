/**
 * `paysandbox record` (docs/recording.md): a bad flag is exit 2 naming it, a server it cannot reach or
 * that refuses is exit 1 with why, and against a real listener the file goes to stdout or --out.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { recordCommand } from "../../src/cli/record.js";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";

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

async function listen(s: TestServer): Promise<string> {
  const http = createServer(getRequestListener(s.server.fetch));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  close = () => new Promise((resolve) => http.close(() => resolve()));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

describe("paysandbox record", () => {
  it.each([
    [{ target: "localhost:8080" }, "--target: expected an http(s) URL"],
    [{ sandbox: "nope" }, "--sandbox: expected a sandbox id"],
    [{ from: "yesterday" }, "--from: expected an ISO 8601 date-time"],
    [{ to: "2026-13-01" }, "--to: expected an ISO 8601 date-time"],
  ])("%o → exit 2 naming the flag", async (opts, message) => {
    const t = io();
    expect(await recordCommand(opts, t.io)).toBe(2);
    expect(t.err.join("\n")).toContain(message);
  });

  it("a server it cannot reach → exit 1 saying so", async () => {
    const t = io();
    expect(await recordCommand({ target: "http://127.0.0.1:9" }, t.io)).toBe(1);
    expect(t.err.join("\n")).toContain("cannot reach http://127.0.0.1:9");
  });

  it("an unknown sandbox → exit 1 with the server's errorMessage; a known one → its file, to stdout or --out", async () => {
    server = makeServer();
    const url = await listen(server);
    const t = io();
    expect(await recordCommand({ target: url, sandbox: "sbx_unknown0000000000" }, t.io)).toBe(1);
    expect(t.err.join("\n")).toContain("Sandbox not found: sbx_unknown0000000000");

    const made = await server.create();
    const token = await server.token(made.base);
    await server.http.post(`${made.base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody());
    const toStdout = io();
    expect(await recordCommand({ target: url, sandbox: made.id }, toStdout.io)).toBe(0);
    expect(toStdout.out.join("")).toContain("request: POST /api/v1/payments/card");
    const out = join(mkdtempSync(join(tmpdir(), "paysandbox-record-cli-")), "s.json");
    const toFile = io();
    expect(await recordCommand({ target: url, sandbox: made.id, out, json: true }, toFile.io)).toBe(0);
    expect(JSON.parse(readFileSync(out, "utf8")).steps[0].request).toBe("POST /api/v1/payments/card");
    expect(toFile.err.join("\n")).toContain(`wrote ${out}`);
  });
});
