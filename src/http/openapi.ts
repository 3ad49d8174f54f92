/**
 * `GET /openapi.json` (docs/api.md#openapi-and-sdks): the OpenAPI 3.1 document of one sandbox's
 * routes and callbacks, generated from the zod schemas the server validates with, once per app (the
 * routes are all registered by then), with its `servers` and the security schemes of the two tokens.
 *
 * What is done to the generated document changes how a rule is written, never the rule itself:
 * - `allOf: [{$ref}, {description}]` (how a described reference comes out) becomes the reference
 *   with its description beside it, which OpenAPI 3.1 allows and generators read as the type itself;
 * - a nullable reference `oneOf: [{$ref}, {type: null}]` becomes `anyOf`: the same values when the
 *   referenced schema refuses null, and the only right form when it takes null (a JSON value);
 * - a nullable reference written `allOf: [{$ref}, {type: [object, null]}]` (which would refuse the
 *   null it means to allow) becomes `anyOf: [{$ref}, {type: null}]`, what zod's `.nullable()` says.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "./env.js";

export interface OpenApiOptions {
  /** The base URL of the request's sandbox (the first of `servers`). */
  serverUrl: Scoped<string>;
  /** The root also lists the sandboxes' base URLs as a server with a variable. */
  root: boolean;
  info: { title: string; version: string; description: string };
}

/** The merchant's token (every gateway route but auth and the report). */
export const MERCHANT_SCHEME = "BearerAuth";
/** The control plane's token, when the server has one. */
export const ADMIN_SCHEME = "AdminToken";

export function registerSecuritySchemes(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", MERCHANT_SCHEME, {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "The merchant's token: from POST /api/v1/auth (operation createAuthToken), its `token` field, sent as `Authorization: Bearer <jwt>` (the field already starts with `Bearer `; a doubled prefix is accepted). Valid 30 days of virtual time.",
  });
  // apiKey-shaped so that a generated client's auth callback can tell it from the merchant's bearer
  // token; on the wire it is the same header (docs/control-plane.md#the-admin-token)
  app.openAPIRegistry.registerComponent("securitySchemes", ADMIN_SCHEME, {
    type: "apiKey",
    in: "header",
    name: "Authorization",
    description:
      "The control plane's admin token: the header's whole value is `Bearer <SANDBOX_ADMIN_TOKEN>` (`--admin-token`). Needed by /_sandbox/* (health excepted) only when the server was started with it; without it the control plane is open, which is why each of its operations also lists the empty alternative `{}`.",
  });
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Keywords that only describe: a schema of these alone constrains nothing. */
const ANNOTATIONS = new Set(["description", "title", "example", "examples", "deprecated", "readOnly", "writeOnly", "default"]);

/** The generated document in the shape generators read best (see the file's comment); in place. */
export function tidyDocument(node: Json): void {
  if (Array.isArray(node)) {
    for (const item of node) tidyDocument(item);
    return;
  }
  if (!isObject(node)) return;
  for (const value of Object.values(node)) tidyDocument(value);
  const all = node.allOf;
  if (Array.isArray(all) && all.length === 2 && isObject(all[0]) && typeof all[0].$ref === "string" && isObject(all[1])) {
    const notes = all[1];
    const type = notes.type;
    if (Object.keys(notes).every((k) => ANNOTATIONS.has(k))) {
      delete node.allOf;
      Object.assign(node, { $ref: all[0].$ref }, notes);
    } else if (
      Array.isArray(type) &&
      type.includes("null") &&
      Object.keys(notes).every((k) => k === "type" || ANNOTATIONS.has(k))
    ) {
      delete node.allOf;
      const { type: _type, ...rest } = notes;
      Object.assign(node, { anyOf: [{ $ref: all[0].$ref }, { type: "null" }] }, rest);
    }
  }
  const one = node.oneOf;
  if (
    Array.isArray(one) &&
    one.length === 2 &&
    isObject(one[0]) &&
    typeof one[0].$ref === "string" &&
    isObject(one[1]) &&
    one[1].type === "null"
  ) {
    delete node.oneOf;
    node.anyOf = one;
  }
}

/** Stands for the server URL in the document's text until a request names its sandbox's. */
const SERVER_URL = "https://paysandbox.invalid/server-url";

/**
 * Serves the document at /openapi.json, made on its first request and kept (the routes do not change
 * after): one text for every sandbox of the app, its servers' URL put in per request.
 */
export function serveOpenApi(app: OpenAPIHono<AppEnv>, opts: OpenApiOptions): void {
  let parts: string[] | undefined;
  app.get("/openapi.json", (c) => {
    parts ??= JSON.stringify(buildDocument(app, opts, SERVER_URL)).split(SERVER_URL);
    // inside JSON strings: the URL as JSON writes it, less its quotes
    const text = parts.join(JSON.stringify(opts.serverUrl(c)).slice(1, -1));
    return c.body(text, 200, { "content-type": "application/json" });
  });
}

export function buildDocument(app: OpenAPIHono<AppEnv>, opts: Omit<OpenApiOptions, "serverUrl">, url: string): JsonObject {
  const servers: JsonObject[] = [{ url, description: opts.root ? "This server (its root sandbox)" : "This sandbox" }];
  if (opts.root) {
    servers.push({
      url: `${url}/sandboxes/{sandboxId}`,
      description:
        "One of this server's isolated sandboxes (POST /_sandbox/sandboxes answers its id and baseUrl): every path of this document works the same under it, but /_sandbox/sandboxes (docs/parallel-suites.md)",
      variables: { sandboxId: { default: "sbx_0Ab1Cd2Ef3Gh4Ij5Kl6M", description: "The id POST /_sandbox/sandboxes answered" } },
    });
  }
  const doc = app.getOpenAPI31Document({
    openapi: "3.1.0",
    info: opts.info,
    servers: servers as never,
    security: [{ [MERCHANT_SCHEME]: [] }],
  }) as unknown as JsonObject;
  tidyDocument(doc);
  return doc;
}
