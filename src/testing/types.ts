/**
 * The public types of `paysandbox/testing`. Only type declarations, no imports: scripts/build.mjs
 * ships this file as dist/testing.d.ts (with the declaration of startSandbox appended).
 */

export interface StartSandboxOptions {
  /** A scenario to load at start: a file path (.yaml, .yml, .json) or the document itself. */
  scenario?: string | Record<string, unknown>;
  /** Virtual time at start (ISO 8601 or a Date); default the real time now. */
  startTime?: string | Date;
  /** pino level of the sandbox's log (default "silent"). */
  logLevel?: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
}

/** A merchant's credentials and ids, as a request body needs them. */
export interface SandboxMerchant {
  merchantKey: string;
  merchantSecret: string;
  mid: string;
  merchantId: number;
  accountId: number;
}

/** One webhook the sandbox delivered to the receiver. */
export interface ReceivedWebhook {
  /** The path the callbackUrl had (e.g. "/cb"). */
  path: string;
  /** Its query (the sandbox adds paymentMethod, apmType). */
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (or the raw text when it is not JSON); `any` so a test reads its fields directly. */
  // biome-ignore lint/suspicious/noExplicitAny: a webhook body is read freely in a test
  body: any;
  raw: string;
}

export interface TestSandbox {
  /** Base URL of the sandbox, e.g. http://127.0.0.1:43121 */
  url: string;
  /** The scenario's first merchant, else the built-in one. */
  merchant: SandboxMerchant;
  /**
   * An `Authorization` header value ("Bearer <jwt>") for `merchant` (or the given credentials).
   * Cached; a new token is fetched by itself once the virtual clock has moved past its expiry.
   */
  auth(merchantKey?: string, merchantSecret?: string): Promise<string>;
  clock: {
    /** The virtual time now, ISO 8601. */
    now(): string;
    /**
     * Moves virtual time forward by an ISO 8601 duration ("P1D", "PT5M") or to an instant
     * ({to: ISO}); everything due on the way runs and its webhooks are attempted first.
     */
    advance(by: string | { to: string | Date }): Promise<{ now: string; ran: Record<string, number> }>;
  };
  webhooks: {
    /** Base URL of the receiver: use `${webhooks.url}/anything` as a callbackUrl. */
    url: string;
    /** Every webhook received so far, oldest first. */
    received: ReceivedWebhook[];
    /** The first webhook (already received or still to come) for which `pred` is true. */
    waitFor(pred: (hook: ReceivedWebhook) => boolean, options?: { timeoutMs?: number }): Promise<ReceivedWebhook>;
  };
  /** POST /_sandbox/reset: empties the sandbox, reloads the scenario, clock back to its start (or `startTime`). */
  reset(options?: { startTime?: string | Date }): Promise<void>;
  /** Stops the server and the receiver and closes the database. */
  close(): Promise<void>;
}
