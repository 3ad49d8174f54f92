/**
 * Loads scenario documents (YAML or JSON; files at start, bodies at run time), validates
 * them, adds their merchants and keeps the whole document for the outcome engine and FX.
 */
import { readFileSync } from "node:fs";
import { asc } from "drizzle-orm";
import { type Db, inTransaction } from "../db/client.js";
import type { Merchant } from "../db/schema/index.js";
import { scenarios } from "../db/schema/index.js";
import type { Clock } from "../platform/clock.js";
import { badRequest, SandboxError } from "../platform/errors.js";
import { jsonTooDeep, loadYaml, MAX_DEPTH, MAX_YAML_ALIASES, valueTooDeep, yamlTooDeep } from "../platform/nesting.js";
import { describeIssues, SCENARIO_LIMITS, type Scenario, scenarioSchema } from "./scenario.schema.js";

/** Where a scenario's merchants go (the merchants service), seen from below. */
export interface MerchantStore {
  /** Adds or replaces merchants by merchantKey; a clash names `<pathPrefix>.<index>.<field>`. */
  upsertMany(list: Merchant[], pathPrefix: string): void;
}

export interface ScenarioDeps {
  db: Db;
  clock: Clock;
  merchants: MerchantStore;
}

export class ScenarioService {
  private cached: Scenario[] | undefined;
  private readonly listeners: Array<() => void> = [];
  private readonly loadListeners: Array<(scenario: Scenario) => void> = [];

  constructor(private readonly deps: ScenarioDeps) {}

  /** Validates and loads one document (at most MAX_DEPTH deep); all or nothing. Throws a 400 SandboxError naming the path. */
  load(document: unknown, source: string): Scenario {
    if (valueTooDeep(document)) throw tooDeep(source);
    const bytes = Buffer.byteLength(JSON.stringify(document) ?? "");
    if (bytes > SCENARIO_LIMITS.bytes) {
      throw badRequest(`Invalid scenario (${source}): (root): ${bytes} bytes, at most ${SCENARIO_LIMITS.bytes} allowed`);
    }
    const parsed = scenarioSchema.safeParse(document);
    if (!parsed.success) throw badRequest(`Invalid scenario (${source}): ${describeIssues(parsed.error)}`);
    // the steps are the runner's, never the sandbox's: a stored document holds none (docs/scenarios.md),
    // so no card number or CVV written in a step is ever at rest
    const { steps: _steps, ...scenario } = parsed.data;
    const loaded = this.all();
    if (loaded.length >= SCENARIO_LIMITS.loaded && !loaded.some((s) => s.name === scenario.name)) {
      throw badRequest(
        `Invalid scenario (${source}): name: ${SCENARIO_LIMITS.loaded} scenarios are loaded, the most at once (reload one by its name, or reset)`,
      );
    }
    inTransaction(this.deps.db, () => {
      this.deps.merchants.upsertMany(
        scenario.merchants.map((m) => ({
          ...m,
          processingCurrency: m.processingCurrency ?? null,
          name: m.name ?? null,
          webhookChaos: m.webhookChaos ?? null,
          source: scenario.name,
        })),
        "merchants",
      );
      this.deps.db
        .insert(scenarios)
        .values({ name: scenario.name, document: scenario, source, loadedAt: this.deps.clock.nowMs() })
        .onConflictDoUpdate({ target: scenarios.name, set: { document: scenario, source, loadedAt: this.deps.clock.nowMs() } })
        .run();
      for (const l of this.loadListeners) l(scenario);
    });
    this.changed();
    return scenario;
  }

  /** Reads a `.yaml`/`.yml`/`.json` file and loads it. */
  loadFile(path: string): Scenario {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (err) {
      throw badRequest(`Cannot read scenario file ${path}: ${(err as Error).message}`);
    }
    return this.load(parseDocument(text, path), path);
  }

  /** Every loaded scenario, in load order. Cached; reloaded after a change. */
  all(): Scenario[] {
    this.cached ??= this.deps.db
      .select()
      .from(scenarios)
      .orderBy(asc(scenarios.loadedAt), asc(scenarios.name))
      .all()
      .map((r) => r.document as Scenario);
    return this.cached;
  }

  /** Every loaded scenario with the virtual time it was loaded at, in load order (GET /_sandbox/scenarios). */
  loaded(): Array<{ scenario: Scenario; loadedAt: number }> {
    return this.deps.db
      .select()
      .from(scenarios)
      .orderBy(asc(scenarios.loadedAt), asc(scenarios.name))
      .all()
      .map((r) => ({ scenario: r.document as Scenario, loadedAt: r.loadedAt }));
  }

  /** Runs inside the transaction of every load (the live events, docs/events.md). */
  onLoad(listener: (scenario: Scenario) => void): void {
    this.loadListeners.push(listener);
  }

  /** Called after every load and reset, so derived caches (outcome engine, FX) rebuild. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  changed(): void {
    this.cached = undefined;
    for (const l of this.listeners) l();
  }
}

/** The message of a document nested deeper than MAX_DEPTH (docs/scenarios.md: a bad file names the path and the problem). */
const tooDeep = (source: string) =>
  badRequest(`Invalid scenario (${source}): (root): nested deeper than ${MAX_DEPTH} levels of sequences and mappings`);

/**
 * Parses YAML (a superset of JSON) or JSON text into a document; a syntax error is a 400. Depth is
 * judged before the parse, on the text (the parsers recurse per level), and again on the value, where
 * a YAML alias counts as deep as what it names (a cycle is too deep); at most MAX_YAML_ALIASES
 * aliases are expanded, so a "billion laughs" document is refused in milliseconds.
 */
export function parseDocument(text: string, source: string): unknown {
  let document: unknown;
  try {
    if (source.endsWith(".json")) {
      if (jsonTooDeep(text)) throw tooDeep(source);
      return JSON.parse(text);
    }
    if (yamlTooDeep(text)) throw tooDeep(source);
    // `<<: *anchor` merge keys let a file write one request body and vary it
    document = loadYaml().parse(text, { merge: true, maxAliasCount: MAX_YAML_ALIASES });
  } catch (err) {
    if (err instanceof SandboxError) throw err;
    throw badRequest(`Invalid scenario (${source}): cannot parse: ${yamlSyntaxMessage(err as Error, text)}`);
  }
  if (valueTooDeep(document)) throw tooDeep(source);
  return document;
}

/**
 * A YAML syntax error in one line. The yaml library's message is the reason, "at line L, column C:",
 * then a code frame on the lines below, which is empty when the error is at the end of the text (an
 * unclosed bracket or quote): so the line says where in words (the end of the document, after its
 * last line) or by line and column, and shows that line.
 */
export function yamlSyntaxMessage(err: Error, text: string): string {
  const first = err.message.split("\n")[0] ?? "";
  const at = / at line \d+, column \d+:$/.exec(first);
  const pos = (err as { pos?: unknown }).pos;
  const place = (err as { linePos?: Array<{ line: number; col: number }> }).linePos?.[0];
  if (!at || !Array.isArray(pos) || typeof pos[0] !== "number" || !place) return first.replace(/:$/, "");
  const reason = first.slice(0, at.index);
  const lines = text.split(/\r?\n/);
  if (pos[0] >= text.trimEnd().length) {
    let last = lines.length - 1;
    while (last > 0 && (lines[last] ?? "").trim() === "") last--;
    return `${reason} at the end of the document, after line ${last + 1}: ${JSON.stringify(lines[last] ?? "")}`;
  }
  return `${reason} at line ${place.line}, column ${place.col}: ${JSON.stringify(lines[place.line - 1] ?? "")}`;
}
