/** Shared by the snapshot suites (docs/snapshots.md): the media type, and `GET {base}/_sandbox/snapshot` read as bytes. */
import type { IncomingMessage } from "node:http";
import type supertest from "supertest";

export const SNAPSHOT = "application/vnd.paysandbox.snapshot";

/** supertest's parser for a binary body (it hands the Node response, typed as superagent's). */
function bytes(res: IncomingMessage, done: (err: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on("data", (c: Buffer) => chunks.push(c));
  res.on("end", () => done(null, Buffer.concat(chunks)));
}

export const binary = bytes as unknown as (res: supertest.Response, done: (err: Error | null, body: unknown) => void) => void;

/** The snapshot file of the sandbox at `base` ("" for the root); throws unless 200 with the snapshot type. */
export async function snapshotBytes(http: ReturnType<typeof supertest>, base: string): Promise<Buffer> {
  const res = await http.get(`${base}/_sandbox/snapshot`).buffer(true).parse(binary);
  if (res.status !== 200 || res.headers["content-type"] !== SNAPSHOT) throw new Error(`snapshot failed: ${res.status}`);
  return res.body as Buffer;
}
