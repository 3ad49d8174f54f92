/**
 * The public types of `paysandbox/testing`. Only type declarations, no imports: scripts/build.mjs
 * ships this file as dist/testing.d.ts (with the declarations of startSandbox and connectSandbox
 * appended).
 */

/**
 * A snapshot (docs/snapshots.md): the path of a file `paysandbox snapshot save` or `sandbox.snapshot()`
 * wrote, or the file's bytes themselves (a Buffer or Uint8Array, as `sandbox.snapshot()` answers).
 */
export type SnapshotSource = string | Uint8Array;

export interface StartSandboxOptions {
  /** A scenario to load at start: a file path (.yaml, .yml, .json) or the document itself. */
  scenario?: string | Record<string, unknown>;
  /**
   * Start from this snapshot instead of an empty sandbox: its state, its clock at the snapshot's
   * now (docs/snapshots.md). Not with `scenario` or `startTime` (the snapshot holds both).
   */
  snapshot?: SnapshotSource;
  /** Virtual time at start (ISO 8601 or a Date); default the real time now. */
  startTime?: string | Date;
  /** pino level of the sandbox's log (default "silent"). */
  logLevel?: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
}

/** Options of `connectSandbox(serverUrl, options)`: the body of `POST /_sandbox/sandboxes` (docs/parallel-suites.md). */
export interface ConnectSandboxOptions {
  /** A scenario to create it with: a file path (.yaml, .yml, .json; sent as its text) or the document itself. */
  scenario?: string | Record<string, unknown>;
  /** Virtual time it starts at (ISO 8601 or a Date); default the server root's now. */
  startTime?: string | Date;
  /**
   * Start as a copy of a sandbox on that server as it is now: its id (`sandbox.id`, "sbx_…") or
   * "root" (docs/snapshots.md). Not with `scenario`, `startTime` or `snapshot`.
   */
  from?: string;
  /**
   * Start from this snapshot (a file path, or its bytes) sent to the server (docs/snapshots.md).
   * Not with `scenario`, `startTime` or `from`.
   */
  snapshot?: SnapshotSource;
  /** A label for people (the server's dashboard and list), e.g. the test file's name. */
  name?: string;
  /** ISO 8601 duration of real time without a request after which the server deletes it (default PT1H, at most P7D). */
  ttl?: string;
  /**
   * Where the server keeps it (docs/parallel-suites.md#storage): "memory" by default (a test's sandbox
   * is deleted by its `close()`, so it needs no file; a server from before storage was a choice gets
   * its own default), or "file" to keep it across a restart of the server.
   */
  storage?: "memory" | "file";
  /** The server's SANDBOX_ADMIN_TOKEN, when it has one; default the SANDBOX_ADMIN_TOKEN environment variable. */
  adminToken?: string;
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

/** Where and when a behaviour was first seen (docs/coverage.md). */
export interface CoverageEvidence {
  transactionId?: string | undefined;
  subscriptionId?: string | undefined;
  /** A webhook delivery of the journal (wh_…). */
  deliveryId?: string | undefined;
  /** The call, for an error answer: "POST /api/v1/refunds/card". */
  request?: string | undefined;
  /** Virtual time, ISO 8601. */
  at: string;
  /** In a report merged by `paysandbox run --coverage`: the file whose sandbox saw it first. */
  file?: string | undefined;
}

/** The areas of the coverage catalogue. */
export type CoverageArea =
  | "card"
  | "tokens"
  | "subscriptions"
  | "refunds"
  | "payouts"
  | "apm"
  | "webhooks"
  | "idempotency"
  | "errors";

/** One behaviour of the catalogue in a coverage report. */
export interface CoverageBehaviour {
  /** Stable id, e.g. "card.payment.failed.decline-5". */
  id: string;
  area: CoverageArea;
  title: string;
  /** How to cause it: a test card, a scenario rule, a page's answer, a clock move. */
  hint: string;
  /** Times seen since the sandbox's last reset. */
  count: number;
  first: CoverageEvidence | null;
}

/** `GET /_sandbox/coverage`: which payment behaviours happened in a sandbox (docs/coverage.md). */
export interface CoverageReport {
  now: string;
  /** Behaviours in the catalogue. */
  total: number;
  /** Behaviours seen at least once. */
  seen: number;
  /** seen / total in percent, rounded down to a tenth. */
  percent: number;
  areas: Array<{ area: CoverageArea; title: string; total: number; seen: number; percent: number }>;
  behaviours: CoverageBehaviour[];
  /** The ids never seen. */
  unseen: string[];
}

/** A sandbox for one test file: `startSandbox()` (in this process) or `connectSandbox()` (on a running server). */
export interface TestSandbox {
  /** Its id on the server ("sbx_…"), what `connectSandbox(url, {from})` forks; "root" for a plain startSandbox(). */
  id: string;
  /**
   * Base URL of the sandbox, e.g. http://127.0.0.1:43121 (startSandbox), or its baseUrl on the
   * server, e.g. http://localhost:8080/sandboxes/sbx_0Ab1Cd2Ef3Gh4Ij5Kl6M (connectSandbox).
   */
  url: string;
  /** The scenario's first merchant, else the built-in one. */
  merchant: SandboxMerchant;
  /**
   * An `Authorization` header value ("Bearer <jwt>") for `merchant` (or the given credentials).
   * Cached; a new token is fetched by itself once the virtual clock has moved past its expiry.
   */
  auth(merchantKey?: string, merchantSecret?: string): Promise<string>;
  clock: {
    /**
     * The virtual time now, ISO 8601. With connectSandbox, reckoned without a request: the time the
     * server last answered (create, advance, reset) plus the real time since, at the server's scale.
     */
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
  /**
   * POST /_sandbox/reset: empties the sandbox, reloads the scenario, clock back to its start (or
   * `startTime`); with `{snapshot: true}`, back to the snapshot or source it was started from
   * instead (docs/snapshots.md). Received webhooks cleared.
   */
  reset(options?: { startTime?: string | Date; snapshot?: boolean }): Promise<void>;
  /** GET /_sandbox/snapshot: its whole state now, as the file's bytes (docs/snapshots.md). */
  snapshot(): Promise<Buffer>;
  /**
   * GET /_sandbox/coverage: which payment behaviours (declines, 3DS outcomes, refunds, webhook
   * retries...) happened in it since its last reset, and a hint for each one that did not (docs/coverage.md).
   */
  coverage(): Promise<CoverageReport>;
  /**
   * startSandbox: stops the server and the receiver and closes the database. connectSandbox:
   * deletes the sandbox on the server (`DELETE /_sandbox/sandboxes/{id}`) and stops the receiver.
   */
  close(): Promise<void>;
}
