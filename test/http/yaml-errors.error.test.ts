/**
 * A YAML syntax error is told whole, wherever YAML comes in (docs/scenarios.md, docs/run.md): a
 * scenario file, a steps file (`paysandbox run`), `POST /_sandbox/scenarios` with YAML and a new
 * sandbox's YAML scenario. At the end of the document (an unclosed bracket or quote), where the
 * yaml library's code frame is empty, the message says so and shows the last line; elsewhere it
 * gives the line and column and shows that line.
 */
import { afterEach, describe, expect, it } from "vitest";
import { makeSandbox, makeServer, type TestSandbox, type TestServer } from "../helpers/harness.js";
import { runCli, scenarioFile } from "./runner.support.js";

let s: TestSandbox | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await server?.close();
  s = undefined;
  server = undefined;
});

/** Steps whose last line opens a list it never closes. */
const UNCLOSED = "name: broken\nsteps:\n  - request: GET /api/v1/payments/card/status/tx_1\n    body: [1, 2\n";
const AT_END =
  'cannot parse: Flow sequence in block collection must be sufficiently indented and end with a ] at the end of the document, after line 4: "    body: [1, 2"';
/** A quote opened on the last line and never closed. */
const OPEN_QUOTE = 'name: broken\ncards:\n  - number: "4111111111111111\n\n';
const QUOTE_AT_END =
  'cannot parse: Missing closing "quote at the end of the document, after line 3: "  - number: \\"4111111111111111"';
/** A mapping inside a compact one, on line 1. */
const NESTED = "name: x: y\nsteps: []\n";
const MIDDLE = 'cannot parse: Nested mappings are not allowed in compact mappings at line 1, column 7: "name: x: y"';

describe("YAML syntax errors, told whole", () => {
  it("a steps file: paysandbox run exits 2 with the message, ending with where and the line", async () => {
    for (const [text, message] of [
      [UNCLOSED, AT_END],
      [OPEN_QUOTE, QUOTE_AT_END],
      [NESTED, MIDDLE],
    ] as const) {
      const file = scenarioFile(text);
      const r = await runCli([file]);
      expect(r.code).toBe(2);
      expect(r.err.trim()).toBe(`paysandbox run: ${file}: ${message}`);
    }
  });

  it("a scenario file loaded by the sandbox (--scenario)", () => {
    s = makeSandbox();
    const file = scenarioFile(OPEN_QUOTE);
    expect(() => s?.ctx.scenarios.loadFile(file)).toThrow(`Invalid scenario (${file}): ${QUOTE_AT_END}`);
  });

  it("POST /_sandbox/scenarios with YAML: 400 with the message, nothing loaded", async () => {
    s = makeSandbox();
    for (const [text, message] of [
      [UNCLOSED, AT_END],
      [NESTED, MIDDLE],
    ] as const) {
      const res = await s.http.post("/_sandbox/scenarios").set("content-type", "application/yaml").send(text);
      expect(res.status).toBe(400);
      expect(res.body.errorMessage).toMatch(/^Invalid scenario \([^)]*\(YAML\)\): /);
      expect(res.body.errorMessage.endsWith(`: ${message}`)).toBe(true);
    }
    expect((await s.http.get("/_sandbox/scenarios")).body).toEqual([]);
  });

  it("POST /_sandbox/sandboxes with a YAML scenario: 400 with the message, no sandbox", async () => {
    server = makeServer();
    const res = await server.http.post("/_sandbox/sandboxes").send({ scenario: OPEN_QUOTE });
    expect(res.status).toBe(400);
    expect(res.body.errorMessage.endsWith(`: ${QUOTE_AT_END}`)).toBe(true);
    expect((await server.http.get("/_sandbox/sandboxes")).body).toEqual([]);
  });
});
