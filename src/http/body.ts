/**
 * Reads request bodies straight from Node's IncomingMessage, enforcing the 1 MiB limit
 * (docs/api.md: 413), and hands the text to Hono's body cache. Hono's own path builds a web
 * `Request` (an undici stream, an AbortSignal) per body: ~10% of a card payment's CPU. Where
 * there is no IncomingMessage (other runtimes), Hono's bodyLimit does the same job.
 *
 * A JSON or YAML body (by Content-Type) nested deeper than MAX_DEPTH is refused here, on its text,
 * before any route parses, validates or hashes it: 400 `Invalid field: body`.
 */
import type { IncomingMessage } from "node:http";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { invalidField, SandboxError } from "../platform/errors.js";
import { jsonTooDeep, MAX_DEPTH, yamlTooDeep } from "../platform/nesting.js";
import type { AppEnv } from "./env.js";

const tooLarge = (limit = "1 MiB") => new SandboxError("PAYLOAD_TOO_LARGE", `Request body too large (limit ${limit})`);

/**
 * Each request's body text as this reader took it, for what reads it again after the route without
 * a promise (the recording, src/recording/recorder.ts). Not in Hono's body cache: Hono converts
 * between the cached forms by their keys, and would take a string there for a promise.
 */
const RECEIVED = new WeakMap<object, string>();

/** The body text `readBody` read from the socket for this request (`c.req`); undefined when it read none (a GET, a binary body, another runtime). */
export function receivedText(req: object): string | undefined {
  return RECEIVED.get(req);
}

/** A body read as bytes, not text (a snapshot file, docs/snapshots.md), with its own limit. */
export interface BinaryBody {
  type: string;
  maxBytes: number;
  /** The one path that takes it (anywhere else such a body is read as text, within the usual limit). */
  path: string;
}

/** The reason of the refusal of a body nested too deep (docs/api.md#errors). */
const TOO_DEEP_REASON = `arrays and objects nested deeper than ${MAX_DEPTH} levels`;

const JSON_TYPE = /\bjson\b/i;
const YAML_TYPE = /\byaml\b/i;
const isDocument = (contentType: string | undefined) =>
  contentType !== undefined && (JSON_TYPE.test(contentType) || YAML_TYPE.test(contentType));

/** Refuses a JSON or YAML body nested deeper than MAX_DEPTH: one pass over its text, nothing recursive. */
function checkNesting(text: string, contentType: string | undefined): void {
  if (contentType === undefined) return;
  const deep = JSON_TYPE.test(contentType) ? jsonTooDeep(text) : YAML_TYPE.test(contentType) ? yamlTooDeep(text) : false;
  if (deep) throw invalidField("body", TOO_DEEP_REASON);
}

/**
 * The body's bytes, through the stream's events: a `for await` over the stream costs an async
 * iterator, its end-of-stream watcher and a promise per chunk on every request (~3% of a card
 * payment's CPU, docs/performance.md). Past `maxBytes` it rejects with `refusal` and stops reading,
 * leaving the stream open: the 413 is answered first, then the rest is dropped before the connection
 * closes (src/http/linger.ts), so the client reads its 413 whether it sent a Content-Length or chunks.
 * A stream closed before its end (the client went away) rejects. With `into` (a body of a declared
 * length), each chunk is copied there as it arrives, while the rest is on the wire: the first
 * buffer of the answer is `into` as far as it was filled.
 */
function readChunks(incoming: IncomingMessage, maxBytes: number, refusal: () => SandboxError, into?: Buffer): Promise<Buffer[]> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let filled = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        done();
        reject(refusal());
      } else if (into && filled === size - chunk.length && size <= into.length) {
        chunk.copy(into, filled);
        filled = size;
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(into ? [into.subarray(0, filled), ...chunks] : chunks);
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    const onClose = () => {
      done();
      reject(new Error("request body not received: the connection closed first"));
    };
    const done = () => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
      incoming.off("close", onClose);
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onError);
    incoming.on("close", onClose);
  });
}

export function readBody(maxBytes: number, binary?: BinaryBody): MiddlewareHandler<AppEnv> {
  const fallback = bodyLimit({
    maxSize: maxBytes,
    onError: () => {
      throw tooLarge();
    },
  });
  const binaryLimit = binary ? `${Math.round(binary.maxBytes / 1024 / 1024)} MiB` : "";
  const binaryFallback =
    binary &&
    bodyLimit({
      maxSize: binary.maxBytes,
      onError: () => {
        throw tooLarge(binaryLimit);
      },
    });
  return async (c, next) => {
    const method = c.req.method;
    if (method === "GET" || method === "HEAD" || method === "OPTIONS") return next();
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const bytes =
      binary !== undefined &&
      c.req.path === binary.path &&
      (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() === binary.type;
    if (bytes && (!incoming || incoming.readableEnded)) return binaryFallback?.(c, next);
    if (bytes && incoming) {
      const declared = Number(incoming.headers["content-length"]);
      if (declared > binary.maxBytes) throw tooLarge(binaryLimit);
      // a snapshot file of its declared length is read into memory of its own, handed on as it is
      const into = Number.isSafeInteger(declared) && declared > 0 ? Buffer.allocUnsafeSlow(declared) : undefined;
      const chunks = await readChunks(incoming, binary.maxBytes, () => tooLarge(binaryLimit), into);
      const whole = (b: Buffer | undefined) => b !== undefined && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
      const all = chunks.length === 1 && whole(chunks[0]) ? (chunks[0] as Buffer) : Buffer.concat(chunks);
      (c.req.bodyCache as Record<string, unknown>).arrayBuffer = Promise.resolve(
        whole(all) ? all.buffer : all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength),
      );
      return next();
    }
    if (!incoming || incoming.readableEnded) {
      return fallback(c, async () => {
        const type = c.req.header("content-type");
        if (isDocument(type)) checkNesting(await c.req.text(), type);
        await next();
      });
    }
    const declared = Number(incoming.headers["content-length"]);
    if (declared > maxBytes) throw tooLarge();
    const chunks = await readChunks(incoming, maxBytes, tooLarge);
    const text = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
    checkNesting(text, c.req.header("content-type"));
    // Hono types the cache as values but stores and awaits promises
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
    RECEIVED.set(c.req, text);
    await next();
  };
}
