/**
 * The bearer tokens' HS256 (src/platform/jwt.ts): byte for byte what `hono/jwt` signs (a token issued
 * by an older build, or saved in a snapshot, still verifies), and nothing but a token its secret
 * signed is let through.
 */
import { createHmac } from "node:crypto";
import { sign, verify } from "hono/jwt";
import { describe, expect, it } from "vitest";
import { signJwt, verifyJwt } from "../../src/platform/jwt.js";

const SECRET = "s3cret-of-one-sandbox";
const CLAIMS = { sub: "merchant-1", sv: "abcdefghijklmnopqrstuv", iat: 1_700_000_000, exp: 1_702_592_000 };
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("HS256 tokens", () => {
  it("are the tokens hono/jwt signs, and verify both ways", async () => {
    const ours = signJwt(CLAIMS, SECRET);
    expect(ours).toBe(await sign(CLAIMS, SECRET, "HS256"));
    expect(verifyJwt(await sign(CLAIMS, SECRET, "HS256"), SECRET)).toEqual(CLAIMS);
    expect(await verify(ours, SECRET, { alg: "HS256", exp: false, nbf: false, iat: false })).toEqual(CLAIMS);
  });

  it("let through no token another secret signed, changed, or not HS256", () => {
    const token = signJwt(CLAIMS, SECRET);
    const [head, body, signature] = token.split(".") as [string, string, string];
    expect(verifyJwt(token, "another secret")).toBeUndefined();
    // claims changed under the same signature
    expect(verifyJwt(`${head}.${b64({ ...CLAIMS, sub: "merchant-2" })}.${signature}`, SECRET)).toBeUndefined();
    // a signature cut short, grown, or with a character base64url has not
    expect(verifyJwt(`${head}.${body}.${signature.slice(0, -2)}`, SECRET)).toBeUndefined();
    expect(verifyJwt(`${head}.${body}.${signature}AA`, SECRET)).toBeUndefined();
    expect(verifyJwt(`${head}.${body}.${signature.slice(0, -1)}+`, SECRET)).toBeUndefined();
    // unsigned (alg none), another algorithm, a critical header, another typ: each signed right
    for (const header of [
      { alg: "none" },
      { alg: "HS512", typ: "JWT" },
      { alg: "HS256", crit: ["x"] },
      { alg: "HS256", typ: "JOSE+X" },
    ]) {
      const other = `${b64(header)}.${body}`;
      const signed = `${other}.${createHmac("sha256", SECRET).update(other).digest("base64url")}`;
      expect(verifyJwt(signed, SECRET)).toBeUndefined();
    }
    expect(verifyJwt(`${head}.${body}.`, SECRET)).toBeUndefined();
    expect(verifyJwt(`${head}.${body}`, SECRET)).toBeUndefined();
    expect(verifyJwt("", SECRET)).toBeUndefined();
    // claims that are no object
    const array = `${head}.${b64([1, 2])}`;
    expect(verifyJwt(`${array}.${createHmac("sha256", SECRET).update(array).digest("base64url")}`, SECRET)).toBeUndefined();
  });
});
