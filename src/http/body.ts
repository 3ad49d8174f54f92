/**
 * Reads request bodies straight from Node's IncomingMessage, enforcing the 1 MiB limit
 * (CONTRACT §3: 413), and hands the text to Hono's body cache. Hono's own path builds a web
 * `Request` (an undici stream, an AbortSignal) per body: ~10% of a card payment's CPU. Where
 * there is no IncomingMessage (other runtimes), Hono's bodyLimit does the same job.
 */
import type { IncomingMessage } from "node:http";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { SandboxError } from "../platform/errors.js";
import type { AppEnv } from "./env.js";

const tooLarge = () => new SandboxError("PAYLOAD_TOO_LARGE", "Request body too large (limit 1 MiB)");

export function readBody(maxBytes: number): MiddlewareHandler<AppEnv> {
  const fallback = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  return async (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    if (!incoming || incoming.readableEnded) return fallback(c, next);
    const declared = Number(incoming.headers["content-length"]);
    if (declared > maxBytes) throw tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of incoming as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk);
    }
    // Hono types the cache as values but stores and awaits promises
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(
      chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"),
    );
    await next();
  };
}
