#!/usr/bin/env node
// The `paysandbox` command (package.json "bin"): runs the built server (npm ci builds dist/).
import "../dist/main.js";
