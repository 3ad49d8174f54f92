/**
 * docs/snapshots.md: bad input to a fork or a load is a 4xx naming what is wrong, and creates nothing.
 * A snapshot file that is truncated, damaged, foreign, of a newer format or from a newer server
 * (fuzzed: truncations, bit flips, random bytes, headers of other versions) → 400 `Invalid snapshot: …`.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeServer, type TestServer } from "../helpers/harness.js";
import { SNAPSHOT, snapshotBytes } from "./snapshots.support.js";

let s: TestServer;
let file: Buffer;
let sourceId: string;

beforeAll(async () => {
  s = makeServer();
  const sb = await s.create();
  sourceId = sb.id;
  file = await snapshotBytes(s.http, sb.base);
});
afterAll(async () => {
  await s?.close();
});

/** The file with its header's checksum made right again (so a check after the checksum's is reached). */
function resealed(bytes: Buffer): Buffer {
  const out = Buffer.from(bytes);
  const metaLength = out.readUInt32BE(12);
  const digest = createHash("sha256")
    .update(out.subarray(0, 32))
    .update(out.subarray(64, 64 + metaLength))
    .update(out.subarray(64 + metaLength))
    .digest();
  digest.copy(out, 32);
  return out;
}

async function load(bytes: Buffer, query = "") {
  return s.http.post(`/_sandbox/sandboxes${query}`).set("content-type", SNAPSHOT).send(bytes);
}

async function expectRefused(bytes: Buffer, message: RegExp) {
  const before = s.server.sandboxes.size;
  const res = await load(bytes);
  expect(res.status).toBe(400);
  expect(res.body.errorMessage).toMatch(/^Invalid snapshot: /);
  expect(res.body.errorMessage).toMatch(message);
  expect(s.server.sandboxes.size).toBe(before);
}

describe("POST /_sandbox/sandboxes {from} with bad input", () => {
  it("an unknown sandbox → 404 naming the field; nothing created", async () => {
    const res = await s.http.post("/_sandbox/sandboxes").send({ from: "sbx_00000000000000000000" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ errorMessage: "Invalid field: from (sandbox not found: sbx_00000000000000000000)" });
    expect(s.server.sandboxes.size).toBe(1);
  });

  it("from with startTime or scenario → 400 naming the field", async () => {
    const a = await s.http.post("/_sandbox/sandboxes").send({ from: sourceId, startTime: "2027-01-01T00:00:00Z" });
    expect(a.status).toBe(400);
    expect(a.body.errorMessage).toBe("Invalid field: startTime");
    const b = await s.http.post("/_sandbox/sandboxes").send({ from: "root", scenario: { name: "x" } });
    expect(b.status).toBe(400);
    expect(b.body.errorMessage).toBe("Invalid field: scenario");
    const c = await s.http.post("/_sandbox/sandboxes").send({ from: sourceId, ttl: "PT0S" });
    expect(c.status).toBe(400);
    expect(c.body.errorMessage).toMatch(/^Invalid field: ttl/);
    const d = await s.http.post("/_sandbox/sandboxes").send({ from: "" });
    expect(d.status).toBe(400);
    expect(d.body.errorMessage).toMatch(/from/);
    expect(s.server.sandboxes.size).toBe(1);
  });

  it("over the limit → 429, nothing created", async () => {
    const t = makeServer({ config: { maxSandboxes: 1 } });
    try {
      await t.create();
      const res = await t.http.post("/_sandbox/sandboxes").send({ from: "root" });
      expect(res.status).toBe(429);
      expect(t.server.sandboxes.size).toBe(1);
    } finally {
      await t.close();
    }
  });
});

describe("POST /_sandbox/sandboxes with a bad snapshot body", () => {
  it("the untouched file loads (the fuzz below starts from a good one)", async () => {
    const res = await load(file, "?name=ok");
    expect(res.status).toBe(201);
    await s.http.delete(`/_sandbox/sandboxes/${res.body.id}?force=true`).expect(204);
  });

  it("names what is wrong: empty, foreign, truncated, newer format, damaged, newer database, not ours", async () => {
    await expectRefused(Buffer.alloc(0), /empty/);
    await expectRefused(Buffer.from("SQLite format 3\0 and more"), /not a paysandbox snapshot/);
    await expectRefused(file.subarray(0, 40), /truncated/);
    await expectRefused(file.subarray(0, file.length - 1), /truncated/);
    await expectRefused(Buffer.concat([file, Buffer.from("x")]), /after its end/);
    const newer = Buffer.from(file);
    newer.writeUInt16BE(2, 8);
    await expectRefused(newer, /format version 2 is newer than this server reads \(1\)/);
    const zero = Buffer.from(file);
    zero.writeUInt16BE(0, 8);
    await expectRefused(zero, /unknown format version 0/);
    const flipped = Buffer.from(file);
    flipped[file.length - 100]! ^= 0x01;
    await expectRefused(flipped, /damaged/);
    const newerDb = Buffer.from(file);
    newerDb.writeUInt16BE(newerDb.readUInt16BE(10) + 1, 10);
    await expectRefused(resealed(newerDb), /made by a newer paysandbox/);
    const olderClaim = Buffer.from(file);
    olderClaim.writeUInt16BE(1, 10);
    await expectRefused(resealed(olderClaim), /not a paysandbox database/);
    const garbage = Buffer.from(file);
    garbage.fill(7, 64 + garbage.readUInt32BE(12));
    await expectRefused(resealed(garbage), /not a SQLite database/);
  });

  it("a snapshot under another content type is refused (415) naming the two it takes, nothing created", async () => {
    const res = await s.http.post("/_sandbox/sandboxes").set("content-type", "application/octet-stream").send(file);
    expect(res.status).toBe(415);
    expect(res.body.errorMessage).toBe(
      "Unsupported Media Type: send Content-Type: application/json or application/vnd.paysandbox.snapshot",
    );
    expect(s.server.sandboxes.size).toBe(1);
  });

  it("fuzz: truncations, bit flips, random bytes and headers of other versions are each a 400, nothing created", async () => {
    const mutation = fc.oneof(
      fc.nat({ max: file.length - 1 }).map((n) => ({ kind: "truncate", bytes: file.subarray(0, n) })),
      fc.tuple(fc.nat({ max: file.length - 1 }), fc.integer({ min: 0, max: 7 })).map(([at, bit]) => {
        const b = Buffer.from(file);
        b[at]! ^= 1 << bit;
        return { kind: "flip", bytes: b };
      }),
      fc.uint8Array({ maxLength: 300 }).map((a) => ({ kind: "random", bytes: Buffer.from(a) })),
      fc.uint8Array({ minLength: 56, maxLength: 56 }).map((a) => ({
        kind: "random after the magic",
        bytes: Buffer.concat([Buffer.from("PAYSBXSN"), Buffer.from(a)]),
      })),
      fc.integer({ min: 2, max: 0xffff }).map((v) => {
        const b = Buffer.from(file);
        b.writeUInt16BE(v, 8);
        return { kind: "version", bytes: b };
      }),
    );
    await fc.assert(
      fc.asyncProperty(mutation, async ({ bytes }) => {
        const before = s.server.sandboxes.size;
        const res = await load(bytes);
        expect(res.status).toBe(400);
        expect(res.body.errorMessage).toMatch(/^Invalid snapshot: /);
        expect(s.server.sandboxes.size).toBe(before);
      }),
      { numRuns: 150 },
    );
  });
});
