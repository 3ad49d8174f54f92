/**
 * Every answer the HTTP suites get is checked against the served `/openapi.json` by a validator
 * that is not ours (Ajv, JSON Schema 2020-12, the dialect of OpenAPI 3.1, with ajv-formats):
 * the status is one the operation documents, the content type is one that status documents, and a
 * JSON body validates against its schema. The harness wraps each app's fetch with `conforming`;
 * a mismatch fails the test that caused it (test/helpers/setup.ts) naming the operation, the status and
 * the JSON pointer of each problem.
 *
 * Strict: every object schema of the document that does not say what other keys may hold is
 * checked as closed (`additionalProperties: false`), so a field the server sends that the document
 * does not declare is a mismatch, not an extra that a generated client would never type. A YAML
 * answer is read and checked like a JSON one. The webhook bodies that test receivers get are checked
 * the same way against the document's `webhooks` (checkCallback, test/helpers/receiver.ts).
 *
 * Paths the document leaves out on purpose (the people's pages: dashboard, docs, guide, the
 * document itself) are not checked; any other path the document does not hold must answer 404,
 * and a documented path asked with a method it does not serve must answer 405 with `Allow` and the
 * error envelope (as the document's description says).
 */

import { appendFileSync } from "node:fs";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { parse as parseYaml } from "yaml";

// ajv-formats is CommonJS: its default export arrives as the module object under some loaders
type AddFormats = typeof addFormatsModule.default;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as AddFormats;

// biome-ignore lint/suspicious/noExplicitAny: the env argument is passed through untouched
type Fetch = (req: Request, env?: any) => Response | Promise<Response>;

interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  webhooks?: Record<string, { post?: { requestBody?: { content?: Record<string, { schema?: unknown }> } } }>;
}
interface Operation {
  operationId?: string;
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

/** Paths the document leaves out on purpose: pages for people, the document itself. */
const PAGES = /^\/($|dashboard(\/|$)|docs(\/|$)|guide(\/|$)|openapi\.json$)/;
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

export interface Mismatch {
  operation: string;
  status: number;
  problems: string[];
}

const found: Mismatch[] = [];
const pending = new Set<Promise<void>>();

/** Turned off by a test that wants to look at a mismatch itself (the checker's own test). */
export const conformance = { enabled: true };

/** The mismatches seen since the last call (and forgets them). */
export async function takeMismatches(): Promise<Mismatch[]> {
  while (pending.size > 0) await Promise.all([...pending]);
  return found.splice(0);
}

/** Fails the test that just ran on any mismatch it caused: every test file's afterEach (test/helpers/setup.ts). */
export async function failOnMismatches(): Promise<void> {
  const mismatches = await takeMismatches();
  if (mismatches.length === 0) return;
  // CONFORMANCE_LOG=file: every mismatch also as a JSON line there (to count them over a whole run)
  const log = process.env.CONFORMANCE_LOG;
  if (log) for (const m of mismatches) appendFileSync(log, `${JSON.stringify(m)}\n`);
  const lines = mismatches.map((m) => `${m.operation} → ${m.status}:\n    ${m.problems.join("\n    ")}`);
  throw new Error(`responses that do not conform to /openapi.json:\n  ${lines.join("\n  ")}`);
}

/**
 * The document with every object schema closed where it does not say what other keys hold:
 * `additionalProperties: false` beside `properties`, unless the schema is a branch of an `allOf`
 * (whose siblings' keys it cannot see) or already says (a record, a loose object).
 */
export function strictDocument<T>(doc: T): T {
  const copy = structuredClone(doc);
  const walk = (node: unknown, inAllOf: boolean) => {
    if (Array.isArray(node)) {
      for (const n of node) walk(n, inAllOf);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const o = node as Record<string, unknown>;
    if (
      !inAllOf &&
      o.properties &&
      typeof o.properties === "object" &&
      o.additionalProperties === undefined &&
      o.unevaluatedProperties === undefined
    ) {
      o.additionalProperties = false;
    }
    for (const [k, v] of Object.entries(o)) walk(v, k === "allOf");
  };
  walk(copy, false);
  return copy;
}

/** What a server without a readable document is checked with: nothing. */
const SKIP = { check: async () => undefined } as unknown as Checker;

/** One document's compiled checks, made once per document text. */
class Checker {
  // `discriminator` read as a note: Ajv's own takes no `mapping`, and the oneOf it sits on decides alone
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ path: string; re: RegExp; params: number }>;

  constructor(private readonly doc: OpenApiDoc) {
    addFormats(this.ajv);
    // OpenAPI's own keywords inside schemas
    for (const k of ["example", "xml", "externalDocs", "discriminator"]) if (!this.ajv.getKeyword(k)) this.ajv.addKeyword(k);
    this.ajv.addSchema(strictDocument(doc) as object, "openapi.json");
    this.templates = Object.keys(doc.paths)
      .map((path) => ({
        path,
        re: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`),
        params: (path.match(/\{/g) ?? []).length,
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** The document's path template for a request path (literal paths before templated ones). */
  template(path: string): string | undefined {
    return this.templates.find((t) => t.re.test(path))?.path;
  }

  async check(method: string, path: string, res: Response, inSandbox: boolean): Promise<Mismatch | undefined> {
    // a sandbox base that names no sandbox answers 404 Sandbox not found, whatever the path (docs/parallel-suites.md)
    if (inSandbox && res.status === 404) return undefined;
    const template = this.template(path);
    const m = method.toLowerCase();
    const ct = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (template === undefined) {
      if (PAGES.test(path)) return undefined;
      // the bearer token is checked before the route is looked up: no credentials, no list of paths
      if (res.status === 404 || res.status === 401) return undefined;
      return {
        operation: `${method} ${path}`,
        status: res.status,
        problems: ["path not in the document (only a 404, or a 401 before it, may answer it)"],
      };
    }
    const ops = this.doc.paths[template]!;
    const op = ops[m];
    const name = `${method} ${template}`;
    if (!op) {
      if (m === "head" && ops.get) return undefined;
      const problems: string[] = [];
      const served = METHODS.filter((x) => ops[x]).map((x) => x.toUpperCase());
      if (res.status !== 405) problems.push(`a method the path does not serve must answer 405, got ${res.status}`);
      const allow = (res.headers.get("allow") ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      if (res.status === 405 && !served.every((s) => allow.includes(s)))
        problems.push(`Allow must list ${served.join(", ")}, got "${allow.join(", ")}"`);
      if (res.status === 405 && ct !== "application/json") problems.push(`405 must be JSON, got "${ct}"`);
      else if (res.status === 405) {
        // the envelope of the path's operations: `{ errorMessage }`, the report's `{ error }`
        const body = (await res.json().catch(() => undefined)) as { errorMessage?: unknown; error?: unknown } | undefined;
        if (typeof body?.errorMessage !== "string" && typeof body?.error !== "string")
          problems.push("405 body must be the error envelope {errorMessage} (the report's {error})");
      }
      return problems.length ? { operation: name, status: res.status, problems } : undefined;
    }
    const responses = op.responses ?? {};
    const key = [String(res.status), `${String(res.status)[0]}XX`, "default"].find((k) => responses[k]);
    if (!key) {
      return {
        operation: name,
        status: res.status,
        problems: [`status ${res.status} not documented (has ${Object.keys(responses).join(", ")})`],
      };
    }
    const content = responses[key]!.content ?? {};
    const types = Object.keys(content);
    const text = await res.text();
    if (types.length === 0) {
      return text.length === 0 || m === "head"
        ? undefined
        : { operation: name, status: res.status, problems: [`no body documented, got ${text.length} bytes of "${ct}"`] };
    }
    const media =
      types.find((t) => t.toLowerCase() === ct) ?? types.find((t) => t.endsWith("/*") && ct.startsWith(t.slice(0, -1)));
    if (!media) {
      return { operation: name, status: res.status, problems: [`content type "${ct}" not documented (has ${types.join(", ")})`] };
    }
    const yaml = /yaml$/.test(media);
    if ((!/json$/.test(media) && !yaml) || content[media]?.schema === undefined || m === "head") return undefined;
    let body: unknown;
    try {
      body = yaml ? parseYaml(text) : JSON.parse(text);
    } catch {
      return { operation: name, status: res.status, problems: [`body is not ${yaml ? "YAML" : "JSON"}`] };
    }
    const pointer = `#/paths/${esc(template)}/${m}/responses/${key}/content/${esc(media)}/schema`;
    const validate = this.validator(pointer);
    if (validate(body)) return undefined;
    return { operation: name, status: res.status, problems: (validate.errors ?? []).map(describe) };
  }

  /** A callback body against the document's webhooks: it must be one of their bodies (strict). */
  checkCallback(body: unknown): string[] | undefined {
    const names = Object.keys(this.doc.webhooks ?? {});
    if (names.length === 0) return undefined;
    const problems: string[] = [];
    for (const name of names) {
      const validate = this.validator(`#/webhooks/${esc(name)}/post/requestBody/content/application~1json/schema`);
      if (validate(body)) return undefined;
      problems.push(`${name}: ${(validate.errors ?? []).slice(0, 3).map(describe).join("; ")}`);
    }
    return problems;
  }

  private validator(pointer: string): ValidateFunction {
    let v = this.compiled.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: `openapi.json${pointer}` });
      this.compiled.set(pointer, v);
    }
    return v;
  }
}

const esc = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
const describe = (e: ErrorObject) =>
  `${e.instancePath || "(body)"} ${e.message ?? "invalid"}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ""} (schema ${e.schemaPath})`;

/** Checkers by document text (its `servers` aside: each sandbox names its own base URL). */
const checkers = new Map<string, Checker>();
let latest: Checker | undefined;

/**
 * A test file starts with no document read: a file whose receivers get webhooks from no server of
 * its own (the unit suites' dispatcher) checks none, even where an earlier file in the same process
 * read one (test/helpers/setup.ts).
 */
export function forgetLatestDocument(): void {
  latest = undefined;
}

/** The document's text without its servers, the checkers' key. */
const keyOf = (text: string, doc: OpenApiDoc & { servers?: unknown }) =>
  doc.servers === undefined ? text : JSON.stringify({ ...doc, servers: undefined });

/**
 * A webhook body a test receiver got, checked against the `webhooks` of the last document read (the
 * receivers of the HTTP suites are fed by those servers); a mismatch fails the test like any other.
 */
export function checkCallback(path: string, body: unknown): void {
  if (!conformance.enabled || !latest || body === null || typeof body !== "object") return;
  const problems = latest.checkCallback(body);
  if (problems) found.push({ operation: `webhook to ${path}`, status: 0, problems });
}

/**
 * `fetch` with every answer checked against the document that the same fetch serves at
 * `/openapi.json`. A sandbox's paths (`/sandboxes/{id}/…`) are checked without their base; the
 * `/v1` alias of the gateway API as its `/api/v1` twin.
 */
export function conforming<F extends Fetch>(fetch: F, origin = "http://sandbox.test", eager = false): F {
  let doc: Promise<Checker> | undefined;
  const checker = () => {
    doc ??= (async () => {
      const res = await fetch(new Request(`${origin}/openapi.json`));
      const text = await res.text();
      const doc = JSON.parse(text) as OpenApiDoc;
      const key = keyOf(text, doc);
      let c = checkers.get(key);
      if (!c) {
        c = new Checker(doc);
        checkers.set(key, c);
      }
      latest = c;
      return c;
    })();
    return doc;
  };
  // a real server may be stopped right after its last answer: its document is read while it runs,
  // and a server that never served one (killed at start) is not checked
  if (eager) doc = checker().catch(() => SKIP);
  const wrapped = async (req: Request, env?: unknown) => {
    const res = await fetch(req, env);
    if (!conformance.enabled) return res;
    const url = new URL(req.url);
    // the path as the client sent it (node's request, where there is one): a Request's URL has its dot
    // segments resolved already, and under /sandboxes/ those are refused with 404 (docs/parallel-suites.md)
    const sent = ((env as { incoming?: { url?: string } } | undefined)?.incoming?.url ?? url.pathname).split("?")[0]!;
    const dotted = sent.split("/").some((seg) => /^(\.|%2e){1,2}$/i.test(seg));
    if (dotted && res.status === 404) return res;
    // a sandbox's base alone is its `/` (src/http/base-path.ts)
    const inSandbox = /^\/sandboxes\/[^/]+(\/|$)/.test(url.pathname);
    const path = url.pathname.replace(/^\/sandboxes\/[^/]+(?=\/|$)/, "").replace(/^\/v1\//, "/api/v1/") || "/";
    const ct = res.headers.get("content-type") ?? "";
    // an event stream never ends: its status and type are checked, not its body
    const copy = /event-stream/.test(ct) ? new Response(null, { status: res.status, headers: res.headers }) : res.clone();
    const job = checker()
      .then((c) => c.check(req.method, path, copy, inSandbox))
      .then((m) => {
        if (m) found.push(m);
      })
      .catch((err: unknown) => {
        found.push({ operation: `${req.method} ${path}`, status: res.status, problems: [`checker failed: ${String(err)}`] });
      })
      .finally(() => pending.delete(job));
    pending.add(job);
    return res;
  };
  return wrapped as F;
}

/**
 * The e2e suites' servers (test/helpers/server.ts registers each one's origin): the global fetch,
 * for a request to a registered origin, is checked the same way against that server's document.
 */
const servers = new Map<string, Fetch>();
let original: typeof globalThis.fetch | undefined;

export function checkServer(origin: string): void {
  if (!original) {
    const plain = globalThis.fetch;
    original = plain;
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      const req = new Request(input, init);
      const check = servers.get(new URL(req.url).origin);
      return check ? check(req) : plain(req);
    }) as typeof globalThis.fetch;
  }
  const plain = original;
  servers.set(
    origin,
    conforming((req: Request) => plain(req), origin, true),
  );
}
