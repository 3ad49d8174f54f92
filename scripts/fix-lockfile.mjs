// Run after `npm install` on these machines: adds lock entries for @biomejs/biome's optional
// platform binaries (other OSes) that the registry mirror here answers 404 for. `npm install`
// tolerates their absence, `npm ci` (CI, the Docker build) refuses a lock without them.
// Usage: node scripts/fix-lockfile.mjs [package-lock.json]
import { readFileSync, writeFileSync } from "node:fs";

const file = process.argv[2] ?? "package-lock.json";
const lock = JSON.parse(readFileSync(file, "utf8"));
const pk = lock.packages;
const biome = pk["node_modules/@biomejs/biome"];
const plat = {
  "android-arm64": ["android", "arm64"],
  "android-x64": ["android", "x64"],
  "darwin-arm64": ["darwin", "arm64"],
  "darwin-x64": ["darwin", "x64"],
  "linux-arm64-musl": ["linux", "arm64", "musl"],
  "linux-x64-musl": ["linux", "x64", "musl"],
  "win32-arm64": ["win32", "arm64"],
  "win32-x64": ["win32", "x64"],
};
const added = {};
for (const name of Object.keys(biome.optionalDependencies)) {
  const key = `node_modules/${name}`;
  if (pk[key]) continue;
  const [os, cpu, libc] = plat[name.replace("@biomejs/cli-", "")];
  added[key] = {
    version: biome.optionalDependencies[name],
    cpu: [cpu],
    dev: true,
    ...(libc ? { libc: [libc] } : {}),
    license: "MIT OR Apache-2.0",
    optional: true,
    os: [os],
    engines: { node: ">=14.21.3" },
  };
}
const out = {};
for (const [k, v] of Object.entries(pk)) {
  out[k] = v;
  if (k === "node_modules/@biomejs/biome") Object.assign(out, added);
}
lock.packages = out;
writeFileSync(file, JSON.stringify(lock, null, 2) + "\n");
