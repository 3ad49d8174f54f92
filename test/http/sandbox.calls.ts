/**
 * A card payment and its status, in one sandbox of a test server (`base`: its path, `/sandboxes/<id>`),
 * each with a token of that sandbox's built-in merchant: what the fork, load and first-open tests ask
 * of the sandboxes they make.
 */
import { expect } from "vitest";
import type { TestServer } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";

/** A card payment in the sandbox at `base` (200 expected): its transactionId. */
export async function pay(server: TestServer, base: string, body = cardPaymentBody()): Promise<string> {
  const token = await server.token(base);
  const res = await server.http.post(`${base}/api/v1/payments/card`).set("authorization", token).send(body);
  expect(res.status).toBe(200);
  return res.body.transactionId as string;
}

/** A transaction's status in the sandbox at `base`: the HTTP status, and its transactionStatus when found. */
export async function statusOf(server: TestServer, base: string, tx: string): Promise<{ status: number; tx?: string }> {
  const token = await server.token(base);
  const res = await server.http.get(`${base}/api/v1/payments/card/status/${tx}`).set("authorization", token);
  return { status: res.status, tx: res.body.transactionStatus };
}
