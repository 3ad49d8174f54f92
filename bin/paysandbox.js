#!/usr/bin/env node
// The `paysandbox` command (package.json "bin"): runs the built server (npm ci builds dist/).
import { main } from "../dist/main.js";

main(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exit(1);
});
