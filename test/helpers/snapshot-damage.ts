/**
 * Damaged snapshots, re-signed (docs/snapshots.md#what-a-load-checks): a world built through the API,
 * its snapshot file, damage done to the SQLite image inside (bytes flipped, the image cut short, pages
 * copied over others or zeroed) with the file's lengths and checksum made right again, as anyone can,
 * and the calls made on a sandbox loaded from such a file. Shared by the property test
 * (test/http/snapshots.damage.test.ts) and the drill (bench/snapshot-damage.ts), each with its own
 * way of sending a request (in-process or over a socket).
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { Sqlite } from "../../src/db/sqlite-driver.js";
import { exampleDevice } from "../../src/platform/examples.js";
import { cardPaymentBody, threeDsBody } from "../http/payments.body.js";

/** One request: a JSON body (or bytes as they are, with their content type), its answer's status and text. */
export type Send = (
  method: string,
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; text: string; bytes: Buffer }>;

export const SNAPSHOT_TYPE = "application/vnd.paysandbox.snapshot";

/** `Send` through a fetch function (a server's in-process `fetch`, or the global one) at `origin`. */
export function sendVia(fetch: (req: Request) => Response | Promise<Response>, origin: string): Send {
  return async (method, path, body, headers = {}) => {
    const init: RequestInit =
      body === undefined
        ? { method, headers }
        : Buffer.isBuffer(body)
          ? { method, headers, body: new Uint8Array(body) }
          : { method, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
    const res = await fetch(new Request(`${origin}${path}`, init));
    const bytes = Buffer.from(await res.arrayBuffer());
    return { status: res.status, bytes, text: bytes.toString("utf8") };
  };
}
const BUILTIN = { merchantKey: "sandbox_merchant_key", merchantSecret: "sandbox_merchant_secret", mid: "sandbox-mid-001" };
const HEADER_BYTES = 64;
const PAGE = 4096;

/** The SQLite image inside a snapshot file. */
export function imageOf(file: Buffer): Buffer {
  return file.subarray(HEADER_BYTES + file.readUInt32BE(12));
}

/** The file with `image` in place of its own, its image length and its checksum made right (SHA-256, as the format says). */
export function resign(file: Buffer, image: Buffer): Buffer {
  const metaLength = file.readUInt32BE(12);
  const head = Buffer.from(file.subarray(0, HEADER_BYTES));
  head.writeBigUInt64BE(BigInt(image.length), 16);
  const meta = file.subarray(HEADER_BYTES, HEADER_BYTES + metaLength);
  createHash("sha256").update(head.subarray(0, 32)).update(meta).update(image).digest().copy(head, 32);
  return Buffer.concat([head, meta, image]);
}

/**
 * An image changed by SQL on a copy, with nothing in the way: SQLite's defensive mode off and the
 * schema writable (`sqlite_schema` can be edited), as a hand with a hex editor has it.
 */
export function alter(image: Buffer, change: (db: InstanceType<typeof Sqlite>) => void): Buffer {
  const db = new Sqlite(image);
  try {
    db.unsafeMode(true);
    change(db);
    return db.serialize();
  } finally {
    db.close();
  }
}

export interface Damage {
  /** What was done, for a person: `flip 3 bytes at 8192, 9000, 12001`. */
  what: string;
  /** The damaged image. */
  image: Buffer;
}

/** Values of every type that the sandbox never writes where they land (or does, somewhere else). */
const ODD_VALUES: readonly unknown[] = [
  "",
  "x",
  "{",
  "[]",
  "{}",
  "-1",
  "1.2.3",
  "2027-02-30",
  "SUCCEEX",
  "9".repeat(20),
  -1,
  0,
  2 ** 53 + 2,
  10n ** 18n,
  -(2n ** 62n),
  1.5,
  1e308,
  null,
  Buffer.from([0, 255]),
];

/**
 * One value of one row changed to an odd one, in a copy of the image (a record that is well formed,
 * its indexes kept right, but holding what the sandbox never wrote there); the image unchanged when
 * SQLite refuses the change (NOT NULL, UNIQUE).
 */
export function valueChanged(image: Buffer): fc.Arbitrary<Damage> {
  const db = new Sqlite(image);
  const cells: Array<{ table: string; column: string; rowid: number }> = [];
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'")
      .pluck()
      .all() as string[];
    for (const table of tables) {
      const columns = (db.pragma(`table_info("${table}")`) as Array<{ name: string }>).map((c) => c.name);
      for (const rowid of db.prepare(`SELECT rowid FROM "${table}"`).pluck().all() as number[]) {
        for (const column of columns) cells.push({ table, column, rowid });
      }
    }
  } finally {
    db.close();
  }
  return fc.tuple(fc.nat({ max: cells.length - 1 }), fc.constantFrom(...ODD_VALUES)).map(([i, value]) => {
    const { table, column, rowid } = cells[i]!;
    const copy = new Sqlite(image);
    try {
      copy.defaultSafeIntegers(true);
      copy.prepare(`UPDATE "${table}" SET "${column}" = ? WHERE rowid = ?`).run(value, rowid);
      const shown = Buffer.isBuffer(value) ? "a blob" : JSON.stringify(typeof value === "bigint" ? String(value) : value);
      return { what: `${table}.${column} of row ${rowid} set to ${shown}`, image: copy.serialize() };
    } catch (err) {
      return { what: `${table}.${column} of row ${rowid}: ${(err as Error).message}`, image };
    } finally {
      copy.close();
    }
  });
}

/**
 * Damage to an image: bytes flipped anywhere or among those in use (not zero: cell content, headers,
 * pointers), the image cut short, a page copied over another, a page zeroed, the 100-byte database
 * header flipped, a value of a row changed (valueChanged).
 */
export function damageOf(image: Buffer): fc.Arbitrary<Damage> {
  const pages = Math.max(1, Math.floor(image.length / PAGE));
  const used: number[] = [];
  for (let i = 0; i < image.length; i++) if (image[i] !== 0) used.push(i);
  const flips = (at: fc.Arbitrary<number>, label: string) =>
    fc.array(fc.tuple(at, fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }).map((xs) => {
      const b = Buffer.from(image);
      for (const [i, mask] of xs) b[i] = (b[i] ?? 0) ^ mask;
      return { what: `${label} ${xs.map(([i, m]) => `${i}^${m}`).join(", ")}`, image: b };
    });
  return fc.oneof(
    flips(fc.nat({ max: image.length - 1 }), "flip bytes"),
    flips(
      fc.nat({ max: used.length - 1 }).map((i) => used[i]!),
      "flip used bytes",
    ),
    flips(fc.nat({ max: 99 }), "flip header bytes"),
    fc.nat({ max: image.length - 1 }).map((n) => ({ what: `cut at ${n}`, image: Buffer.from(image.subarray(0, n)) })),
    fc.tuple(fc.nat({ max: pages - 1 }), fc.nat({ max: pages - 1 })).map(([from, to]) => {
      const b = Buffer.from(image);
      image.copy(b, to * PAGE, from * PAGE, (from + 1) * PAGE);
      return { what: `page ${from + 1} copied over page ${to + 1}`, image: b };
    }),
    fc.nat({ max: pages - 1 }).map((p) => {
      const b = Buffer.from(image);
      b.fill(0, p * PAGE, (p + 1) * PAGE);
      return { what: `page ${p + 1} zeroed`, image: b };
    }),
    valueChanged(image),
  );
}

/** What a world holds that a test of its copies uses. */
export interface World {
  file: Buffer;
  /** A bearer token its source issued (a copy accepts it). */
  token: string;
  /** Ids of transactions of each kind it holds: paid, declined, waiting for 3DS, refunded, a refund. */
  transactions: string[];
  subscription: string;
}

let n = 0;
const rid = (label: string) => `${label}-${process.pid}-${++n}`;

async function json(send: Send, method: string, path: string, body?: unknown, token?: string) {
  const res = await send(method, path, body, token ? { authorization: token } : {});
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return res.text ? (JSON.parse(res.text) as Record<string, unknown>) : {};
}

/**
 * A world in a new sandbox at `base`: a scenario of its own, card payments (paid, declined, one waiting
 * for its 3DS challenge), a refund, a saved card and a monthly subscription on it, webhooks pending to
 * a receiver nobody listens on, the clock a day on; and its snapshot file.
 */
export async function buildWorld(send: Send): Promise<World> {
  const created = await json(send, "POST", "/_sandbox/sandboxes", {
    name: "world",
    startTime: "2027-01-15T12:00:00Z",
    scenario: { name: "world-rules", fxRates: { EUR: 0.9 }, rules: [{ amount: "13.37", status: "FAILED", declineCode: 5 }] },
  });
  const base = new URL(String(created.baseUrl)).pathname;
  const { token } = (await json(send, "POST", `${base}/api/v1/auth`, {
    merchantKey: BUILTIN.merchantKey,
    merchantSecret: BUILTIN.merchantSecret,
  })) as { token: string };
  const hook = "http://127.0.0.1:9/hooks";
  const redirects = { successRedirectUrl: "https://shop.example/ok", failureRedirectUrl: "https://shop.example/ko" };
  const pay = async (over: Record<string, unknown>) =>
    String((await json(send, "POST", `${base}/api/v1/payments/card`, cardPaymentBody(over), token)).transactionId);
  const paid = await pay({ requestId: rid("paid"), callbackUrl: hook, ...redirects });
  const declined = await pay({ requestId: rid("declined"), card: { number: "4000000000000002" } });
  const waiting = String(
    (await json(send, "POST", `${base}/api/v1/payments/card`, threeDsBody(hook, { card: { number: "4000000000003220" } }), token))
      .transactionId,
  );
  const refund = await json(
    send,
    "POST",
    `${base}/v1/refunds/card`,
    { requestId: rid("rf"), mid: BUILTIN.mid, transactionId: paid, amount: "5.00", reason: "world" },
    token,
  );
  const tokenized = await json(
    send,
    "POST",
    `${base}/api/v1/payments/card/tokenize`,
    {
      requestId: rid("tok"),
      merchantId: 1001,
      card: { number: "4111111111111111", expMonth: "12", expYear: "2030", cvv: "737" },
      billingDetails: cardPaymentBody().billingDetails,
    },
    token,
  );
  const subscription = await json(
    send,
    "POST",
    `${base}/api/v1/payments/card/recurring`,
    {
      requestId: rid("sub"),
      mid: BUILTIN.mid,
      cardToken: tokenized.token,
      plan: { amount: "9.99", currency: "USD", frequency: "MONTHLY", interval: 1, startDate: "2027-01-15" },
      order: { orderId: "world-plan" },
      device: exampleDevice("damage"),
      callbackUrl: hook,
      successRedirectUrl: "https://shop.example/ok",
      failureRedirectUrl: "https://shop.example/ko",
    },
    token,
  );
  await json(send, "POST", `${base}/_sandbox/clock/advance`, { by: "PT2H" });
  const file = await send("GET", `${base}/_sandbox/snapshot`);
  if (file.status !== 200) throw new Error(`snapshot: ${file.status}`);
  await send("DELETE", `/_sandbox/sandboxes/${String(created.id)}?force=true`);
  return {
    file: file.bytes,
    token,
    transactions: [paid, declined, waiting, String(refund.refundId)],
    subscription: String(subscription.subscriptionId),
  };
}

/** POST /_sandbox/sandboxes with a snapshot file. */
export const loadFile = (send: Send, file: Buffer) =>
  send("POST", "/_sandbox/sandboxes", file, { "content-type": SNAPSHOT_TYPE });

/** One call on a loaded sandbox and its status. */
export interface Called {
  call: string;
  status: number;
  text: string;
}

/**
 * The calls a test makes on a sandbox loaded from a world's snapshot (`id` and `base` its own): auth,
 * a card payment, the status of each transaction the world holds and its subscription, the webhook
 * journal, the recording, a report and the dashboard's pages (every row read), a clock advance past
 * the 3DS timeout and a month's charge, its snapshot loaded again, a fork of it, its reset to the
 * snapshot and a plain reset, a payment after each, and its deletion. Each call's status; the copies
 * it makes are deleted.
 */
export async function callsOn(send: Send, world: World, id: string, base: string): Promise<Called[]> {
  const out: Called[] = [];
  const call = async (name: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const res = await send(method, path, body, headers);
    out.push({ call: name, status: res.status, text: res.text.slice(0, 300) });
    return res;
  };
  /** A bearer token of the built-in merchant now (the clock moves past a token's 30 days), else the world's. */
  const tokenNow = async (label: string, at = base) => {
    const res = await call(label, "POST", `${at}/api/v1/auth`, {
      merchantKey: BUILTIN.merchantKey,
      merchantSecret: BUILTIN.merchantSecret,
    });
    return { authorization: res.status === 200 ? (JSON.parse(res.text) as { token: string }).token : world.token };
  };
  const as = await tokenNow("auth");
  await call("card payment", "POST", `${base}/api/v1/payments/card`, cardPaymentBody({ requestId: rid("after") }), as);
  for (const tx of world.transactions) {
    const path = tx.startsWith("rf_") ? `/api/v1/refunds/card/status/${tx}` : `/api/v1/payments/card/status/${tx}`;
    await call(`status ${tx}`, "GET", `${base}${path}`, undefined, as);
  }
  await call("subscription", "GET", `${base}/api/v1/payments/card/recurring/${world.subscription}`, undefined, as);
  await call("journal", "GET", `${base}/_sandbox/webhooks`);
  await call("recording", "GET", `${base}/_sandbox/recording`, undefined, { accept: "application/json" });
  await call(
    "report",
    "POST",
    `${base}/api/v1/report-generator/s2s`,
    { dateFrom: "2027-01-01", dateTo: "2027-12-31" },
    {
      "x-merchant-key": BUILTIN.merchantKey,
      "x-merchant-secret": BUILTIN.merchantSecret,
    },
  );
  await call("dashboard", "GET", `${base}/`, undefined, { accept: "text/html" });
  await call("dashboard: subscriptions", "GET", `${base}/dashboard/subscriptions`, undefined, { accept: "text/html" });
  await call("advance", "POST", `${base}/_sandbox/clock/advance`, { by: "P32D" });
  const later = await tokenNow("auth after it");
  await call("status after it", "GET", `${base}/api/v1/payments/card/status/${world.transactions[2]}`, undefined, later);
  const again = await call("snapshot", "GET", `${base}/_sandbox/snapshot`);
  if (again.status === 200) {
    const loaded = await call("load its snapshot", "POST", "/_sandbox/sandboxes", again.bytes, { "content-type": SNAPSHOT_TYPE });
    if (loaded.status === 201) await call("delete that", "DELETE", `/_sandbox/sandboxes/${idOf(loaded.text)}?force=true`);
  }
  const fork = await call("fork", "POST", "/_sandbox/sandboxes", { from: id });
  if (fork.status === 201) {
    const forkBase = new URL(String(JSON.parse(fork.text).baseUrl)).pathname;
    const inFork = await tokenNow("fork: auth", forkBase);
    await call("fork: payment", "POST", `${forkBase}/api/v1/payments/card`, cardPaymentBody({ requestId: rid("fork") }), inFork);
    await call("delete the fork", "DELETE", `/_sandbox/sandboxes/${idOf(fork.text)}?force=true`);
  }
  await call("reset to the snapshot", "POST", `${base}/_sandbox/reset`, { snapshot: true });
  await call("status after it", "GET", `${base}/api/v1/payments/card/status/${world.transactions[0]}`, undefined, as);
  await call("payment after it", "POST", `${base}/api/v1/payments/card`, cardPaymentBody({ requestId: rid("back") }), as);
  await call("reset", "POST", `${base}/_sandbox/reset`, {});
  const fresh = await tokenNow("auth after reset");
  await call("payment after reset", "POST", `${base}/api/v1/payments/card`, cardPaymentBody({ requestId: rid("reset") }), fresh);
  await call("delete", "DELETE", `/_sandbox/sandboxes/${id}?force=true`);
  return out;
}

const idOf = (text: string) => String((JSON.parse(text) as { id: unknown }).id);
