/**
 * The one app of every sandbox (src/app.ts createSandboxesApp, docs/architecture.md "One route
 * tree") is ready when the server starts: hono compiles a router at its first match, and that
 * first match is made when the app is built, not in the first request of the first sandbox.
 */
import { describe, expect, it } from "vitest";
import { createSandboxesApp } from "../../src/app.js";
import { defaultConfig } from "../../src/config.js";

describe("the sandboxes' app", () => {
  it("has its router compiled once built", () => {
    const app = createSandboxesApp(defaultConfig({ publicUrl: "http://sandbox.test" }));
    // hono's SmartRouter names the router it chose once it has compiled it
    expect(app.router.name).toMatch(/^SmartRouter \+ \w+Router$/);
  });
});
