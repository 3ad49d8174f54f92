/**
 * The HTTP server's own timeouts (docs/configuration.md#timeouts): how long a client has to send a
 * request's head and the whole request, how often Node looks for one that is late, and how long an
 * idle keep-alive connection stays open. They end when the request has arrived: an answer takes as
 * long as it takes (a stream of live events, a report download, a minute-long clock advance).
 */
import type { ServerOptions } from "node:http";
import type { Config } from "../config.js";
import { LINGER_MAX_MS } from "./linger.js";

type Timeouts = Pick<Config, "headerTimeoutSeconds" | "requestTimeoutSeconds">;

/** Idle keep-alive connections close after this (Node's own default, said here; advertised as `Keep-Alive: timeout=5`). */
export const KEEP_ALIVE_MS = 5_000;

/** The options of `http.createServer` for these settings. */
export function serverTimeouts(config: Timeouts): ServerOptions {
  const headersTimeout = config.headerTimeoutSeconds * 1000;
  return {
    headersTimeout,
    requestTimeout: config.requestTimeoutSeconds * 1000,
    // Node closes late requests when it checks, every 30 s by default: a 60 s header timeout held a
    // slow head up to 87 s. A check a second (a walk over the requests in progress) closes one
    // within a second of its timeout; a tenth of the timeout below 10 s.
    connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(headersTimeout / 10))),
    keepAliveTimeout: KEEP_ALIVE_MS,
  };
}

/**
 * How long a refused body is drained before its connection is cut (src/http/linger.ts): at most
 * LINGER_MAX_MS, and no longer than the request timeout, within which the body had to arrive anyway.
 */
export function lingerMs(config: Timeouts): number {
  return Math.min(LINGER_MAX_MS, config.requestTimeoutSeconds * 1000);
}
