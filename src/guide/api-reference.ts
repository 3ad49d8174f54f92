/**
 * `GET /docs` (docs/api.md): the Scalar API reference of /openapi.json, with its script served
 * by the sandbox itself, so the page renders without internet access. The script is the
 * standalone browser bundle of the pinned @scalar/api-reference: scripts/build.mjs copies it
 * into dist/assets/ (an installed package or the Docker image has no dev dependencies);
 * when running from src/ (tests, `npm run dev`) it is read from node_modules.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import type { AppEnv } from "../http/env.js";

export const DOCS_SCRIPT_PATH = "/docs/assets/api-reference.js";
/** The file name scripts/build.mjs gives the bundle under dist/assets/. */
export const DOCS_ASSET_NAME = "api-reference.js";

/** Where the standalone bundle is: beside the built server, else in node_modules. */
export function docsAssetFile(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  const built = join(here, "assets", DOCS_ASSET_NAME);
  if (existsSync(built)) return built;
  try {
    const entry = createRequire(import.meta.url).resolve("@scalar/api-reference");
    const file = join(dirname(entry), "browser", "standalone.js");
    return existsSync(file) ? file : undefined;
  } catch {
    return undefined;
  }
}

export function registerDocs(app: OpenAPIHono<AppEnv>) {
  let script: Buffer | undefined;
  app.get(DOCS_SCRIPT_PATH, (c) => {
    const file = docsAssetFile();
    if (!file) return c.json({ errorMessage: "The API reference script is not installed (build with npm run build)" }, 404);
    script ??= readFileSync(file);
    return c.body(new Uint8Array(script), 200, {
      "Content-Type": "text/javascript; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
    });
  });
  // No fonts, telemetry or AI agent (it loads documents from scalar.com) from outside: everything the
  // page needs comes from this server. (`telemetry` and `agent` are options of the pinned bundle that
  // @scalar/hono-api-reference's types predate.)
  const config = { url: "/openapi.json", pageTitle: "paysandbox API", cdn: DOCS_SCRIPT_PATH, withDefaultFonts: false };
  app.get("/docs", Scalar({ ...config, ...{ telemetry: false, agent: { disabled: true } } }));
}
