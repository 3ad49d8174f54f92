import { defineConfig } from "vitest/config";

export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "hono/jsx" },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/helpers/global-setup.ts"],
    // generous: CI runs the suite once per Node.js line on two cores, and a property test that takes
    // 6 s on a quiet machine took over 20 s on a loaded one; a hung test still fails, a minute later
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // e2e suites start real servers and a browser; keep them off each other's ports and CPU
    fileParallelism: true,
    maxWorkers: 2,
  },
});
