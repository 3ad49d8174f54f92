/** A bearer token from `POST {baseUrl}/api/v1/auth` of a running server (docs/gateway.md#authentication). */
import { BUILTIN } from "./harness.js";

export async function fetchToken(
  baseUrl: string,
  creds: { merchantKey: string; merchantSecret: string } = BUILTIN,
): Promise<string> {
  const res = await fetch(`${baseUrl}/api/v1/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ merchantKey: creds.merchantKey, merchantSecret: creds.merchantSecret }),
  });
  const body = (await res.json()) as { token?: string };
  if (res.status !== 200 || typeof body.token !== "string") throw new Error(`auth failed: ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}
