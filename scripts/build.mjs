// Bundles src/ into dist/main.js with esbuild (fast: a start never waits on tsc) and copies
// the drizzle migrations beside it. Dependencies stay external (better-sqlite3 is native).
import { cpSync, rmSync } from "node:fs";
import { build } from "esbuild";

rmSync("dist", { recursive: true, force: true });
await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/main.js",
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  packages: "external",
  sourcemap: true,
  jsx: "automatic",
  jsxImportSource: "hono/jsx",
  logLevel: "warning",
});
cpSync("src/db/migrations", "dist/migrations", { recursive: true });
