// `npm start [-- flags]`: builds dist/ first only when it is stale (scripts/freshness.mjs), then
// runs `paysandbox start` in this same process: one Node start instead of two (npm
// start → healthy was 0.9–1 s when every start rebuilt, 0.55–0.7 s with a separate prestart check).
import { spawnSync } from "node:child_process";
import { assertSupportedNode } from "../bin/node-lines.js";
import { failStartup } from "../bin/startup-failure.js";
import { distIsCurrent } from "./freshness.mjs";

assertSupportedNode();

if (!distIsCurrent()) {
  const built = spawnSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
process.argv.splice(2, 0, "start");
await import("../dist/main.js").catch(failStartup);
