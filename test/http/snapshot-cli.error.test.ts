/**
 * `paysandbox snapshot save|load` (docs/snapshots.md): a bad flag or an unreadable file is exit 2
 * naming it, a server it cannot reach or that refuses is exit 1 with why, and against a real
 * listener a saved file loads as a new sandbox holding what its source held.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getRequestListener } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { snapshotLoadCommand, snapshotSaveCommand } from "../../src/cli/snapshot.js";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { alter, imageOf, resign } from "../helpers/snapshot-damage.js";
import { cardPaymentBody } from "./payments.body.js";

let server: TestServer | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  await server?.close();
  server = undefined;
  close = undefined;
});

function io(outIsTerminal = false) {
  const out: Array<string | Uint8Array> = [];
  const err: string[] = [];
  return { out, err, io: { out: (d: string | Uint8Array) => out.push(d), err: (l: string) => err.push(l), outIsTerminal } };
}

async function listen(s: TestServer): Promise<string> {
  const http = createServer(getRequestListener(s.server.fetch));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  close = () => new Promise((resolve) => http.close(() => resolve()));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

const dir = () => mkdtempSync(join(tmpdir(), "paysandbox-snapshot-cli-"));

describe("paysandbox snapshot save", () => {
  it.each([
    [{ target: "localhost:8080", out: "x" }, "--target: expected an http(s) URL"],
    [{ sandbox: "nope", out: "x" }, "--sandbox: expected a sandbox id"],
  ])("%o → exit 2 naming the flag", async (opts, message) => {
    const t = io();
    expect(await snapshotSaveCommand(opts, t.io)).toBe(2);
    expect(t.err.join("\n")).toContain(message);
  });

  it("no --out with stdout a terminal → exit 2: the file is binary", async () => {
    const t = io(true);
    expect(await snapshotSaveCommand({ target: "http://127.0.0.1:9" }, t.io)).toBe(2);
    expect(t.err.join("\n")).toContain("give --out FILE");
  });

  it("a server it cannot reach → exit 1 saying so", async () => {
    const t = io();
    expect(await snapshotSaveCommand({ target: "http://127.0.0.1:9" }, t.io)).toBe(1);
    expect(t.err.join("\n")).toContain("cannot reach http://127.0.0.1:9");
  });

  it("an unknown sandbox → exit 1 with the server's errorMessage", async () => {
    server = makeServer();
    const url = await listen(server);
    const t = io();
    expect(await snapshotSaveCommand({ target: url, sandbox: "sbx_unknown0000000000", out: join(dir(), "s") }, t.io)).toBe(1);
    expect(t.err.join("\n")).toContain("Sandbox not found: sbx_unknown0000000000");
  });
});

describe("paysandbox snapshot load", () => {
  it("a missing file → exit 2 naming it; a bad --target → exit 2", async () => {
    const t = io();
    expect(await snapshotLoadCommand("/nonexistent/world.snapshot", {}, t.io)).toBe(2);
    expect(t.err.join("\n")).toContain("/nonexistent/world.snapshot: no such file");
    const u = io();
    const file = join(dir(), "w");
    writeFileSync(file, "x");
    expect(await snapshotLoadCommand(file, { target: "ftp://x" }, u.io)).toBe(2);
    expect(u.err.join("\n")).toContain("--target: expected an http(s) URL");
  });

  it("a file that is not a snapshot → exit 1 with the server's reason, nothing created", async () => {
    server = makeServer();
    const url = await listen(server);
    const file = join(dir(), "not.snapshot");
    writeFileSync(file, "name: a scenario, not a snapshot\n");
    const t = io();
    expect(await snapshotLoadCommand(file, { target: url }, t.io)).toBe(1);
    expect(t.err.join("\n")).toMatch(/answered 400: Invalid snapshot: not a paysandbox snapshot/);
    expect(t.out).toEqual([]);
    expect((await server.http.get("/_sandbox/sandboxes")).body).toEqual([]);
  });

  it("a file whose database was changed and its checksum made right again → exit 1 with the server's reason, nothing created", async () => {
    server = makeServer();
    const url = await listen(server);
    const made = await server.create({ name: "world" });
    const saved = join(dir(), "world.snapshot");
    expect(await snapshotSaveCommand({ target: url, sandbox: made.id, out: saved }, io().io)).toBe(0);
    const file = readFileSync(saved);
    const damaged = join(dir(), "damaged.snapshot");
    writeFileSync(
      damaged,
      resign(
        file,
        alter(imageOf(file), (db) =>
          db.exec("CREATE TRIGGER wipe AFTER INSERT ON transactions BEGIN DELETE FROM merchants; END"),
        ),
      ),
    );
    const t = io();
    expect(await snapshotLoadCommand(damaged, { target: url }, t.io)).toBe(1);
    expect(t.err.join("\n")).toMatch(
      /answered 400: Invalid snapshot: its database is not a paysandbox database \(its schema has a trigger wipe that this server's has not\)/,
    );
    expect(t.out).toEqual([]);
    expect((await server.http.get("/_sandbox/sandboxes")).body).toHaveLength(1);
  });

  it("save (to --out and to stdout) then load: a new sandbox at the printed baseUrl holding the source's payment", async () => {
    server = makeServer();
    const url = await listen(server);
    const made = await server.create({ name: "world" });
    const token = await server.token(made.base);
    const paid = await server.http.post(`${made.base}/api/v1/payments/card`).set("authorization", token).send(cardPaymentBody());
    expect(paid.status).toBe(200);

    const file = join(dir(), "world.snapshot");
    const saved = io();
    expect(await snapshotSaveCommand({ target: url, sandbox: made.id, out: file }, saved.io)).toBe(0);
    expect(saved.err.join("\n")).toContain(`wrote ${file}`);
    const toStdout = io();
    expect(await snapshotSaveCommand({ target: url, sandbox: made.id }, toStdout.io)).toBe(0);
    expect(
      Buffer.from(toStdout.out[0] as Uint8Array)
        .subarray(0, 8)
        .toString("latin1"),
    ).toBe("PAYSBXSN");
    expect(readFileSync(file).subarray(0, 8).toString("latin1")).toBe("PAYSBXSN");

    const loaded = io();
    expect(await snapshotLoadCommand(file, { target: url, name: "from-cli", ttl: "PT5M" }, loaded.io)).toBe(0);
    const baseUrl = String(loaded.out[0]).trim();
    expect(baseUrl).toMatch(/^http:\/\/sandbox\.test\/sandboxes\/sbx_\w+$/);
    expect(loaded.err.join("\n")).toMatch(/sandbox sbx_\w+ started from/);
    const base = new URL(baseUrl).pathname;
    expect(base).not.toBe(made.base);
    const status = await server.http
      .get(`${base}/api/v1/payments/card/status/${paid.body.transactionId}`)
      .set("authorization", await server.token(base));
    expect(status.body).toMatchObject({ transactionStatus: "SUCCEED" });
    const listed = (await server.http.get("/_sandbox/sandboxes")).body as Array<{ name: string; baseUrl: string }>;
    expect(listed.find((s) => s.baseUrl === baseUrl)?.name).toBe("from-cli");
  });
});
