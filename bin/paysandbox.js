#!/usr/bin/env node
// The `paysandbox` command (package.json "bin"): runs the built server (npm ci builds dist/), once
// the Node.js line is known to be supported (bin/node-lines.js).
import { assertSupportedNode } from "./node-lines.js";
import { failStartup } from "./startup-failure.js";

assertSupportedNode();
await import("../dist/main.js").catch(failStartup);
