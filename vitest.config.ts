import { defineConfig } from "vitest/config";

/**
 * Unit and HTTP files that need a process of their own: they test what a process holds once
 * (the checkpointer is one thread per process, started once and kept), so another file's
 * databases in the same process would already have started it.
 */
const OWN_PROCESS = ["test/unit/checkpointer.happy.test.ts"];

export default defineConfig({
  test: {
    globalSetup: ["test/helpers/global-setup.ts"],
    setupFiles: ["test/helpers/setup.ts"],
    // generous: CI runs the suite once per Node.js line on two cores, and a property test that takes
    // 6 s on a quiet machine took over 20 s on a loaded one; a hung test still fails, a minute later
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // e2e suites start real servers and a browser; keep them off each other's ports and CPU
    fileParallelism: true,
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          include: ["test/unit/**/*.test.ts", "test/http/**/*.test.ts"],
          exclude: OWN_PROCESS,
          // the unit and HTTP files share their worker process and its module graph: the server's
          // modules, hono, the zod schemas and the OpenAPI document are evaluated once per worker,
          // not once per file (with a fresh process per file that import was ~40% of the suite's
          // CPU). Each file builds its own apps, clocks and databases and keeps nothing in a module.
          isolate: false,
        },
      },
      {
        extends: true,
        // the e2e files start servers, browsers and other runtimes, each file in a process of its own
        test: { name: "own-process", include: ["test/e2e/**/*.test.ts", ...OWN_PROCESS] },
      },
    ],
  },
});
