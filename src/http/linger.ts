/**
 * An answer given before its request's body has all arrived (a body over its limit: 413; a caller
 * refused before the body is read: 401) reaches the client (docs/api.md#errors). Closing a
 * connection while its client still sends makes the kernel answer with a reset, and a client that
 * has not read the answer yet loses it: curl says "Connection reset by peer", a client that sends
 * its whole body before it reads says EPIPE. So the answer goes with `Connection: close`, the rest
 * of the body is read and dropped, and the connection closes once the client closes its side (a
 * lingering close, as nginx's): bounded by LINGER_MAX_BYTES and by a time, so a client that never
 * stops sending cannot hold the socket.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** At most this much more of a refused body is read and dropped; past it the connection is cut. */
export const LINGER_MAX_BYTES = 64 * 1024 * 1024;
/** At most this long (or the request timeout, when shorter: docs/configuration.md) before it is cut. */
export const LINGER_MAX_MS = 5_000;

/** What @hono/node-server passes as a request's env on Node. */
interface NodeEnv {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

const lingering = new WeakSet<Socket>();
const ignore = () => undefined;

/**
 * Called with the answer decided and not yet written: when the request's body has not all arrived,
 * the answer closes the connection, lingering (above) for at most `maxMs`. A request whose body was
 * read, or had none, costs one property read.
 */
export function lingerIfUnread(env: unknown, maxMs: number): void {
  const incoming = (env as NodeEnv | undefined)?.incoming;
  if (incoming === undefined || incoming.complete) return;
  const outgoing = (env as NodeEnv).outgoing;
  const socket = incoming.socket as Socket | null;
  if (!outgoing || !socket || socket.destroyed || lingering.has(socket)) return;
  lingering.add(socket);
  if (!outgoing.headersSent) outgoing.setHeader("Connection", "close");
  let dropped = 0;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, maxMs);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  incoming.on("data", (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > LINGER_MAX_BYTES) cut();
  });
  incoming.on("error", ignore);
  incoming.resume();
  // Node ends a `Connection: close` answer with destroySoon(): end() and, as soon as that is flushed,
  // destroy(), unread bytes or not (the reset). Here the end only: the answer, then FIN; the socket
  // closes when the client closes its side, or at the bounds above.
  socket.destroySoon = function destroySoon(this: Socket) {
    if (this.writable) this.end();
  };
}
