/**
 * The steps of an exported recording as they are built (steps-export.ts), and the references
 * between them: an id an earlier step's answer gave becomes `${name.path}` of that answer (the step
 * is saved under a short name on first use), a recorded body is rewritten as a step sends it (a
 * card mask as its test card, `requestId`, `checksum` and `callbackUrl` as the runner's own), and an
 * id from nowhere is noted on its step.
 */
import { ID_PREFIXES } from "../platform/ids.js";
import type { BUILTIN_REFS } from "../scenarios/steps.schema.js";
import { MASK } from "./redact.js";

const ID_SOURCE = `(?:${Object.values(ID_PREFIXES).join("|")})_[0-9A-Za-z]{6,40}`;
const ID_IN_TEXT = new RegExp(`\\b${ID_SOURCE}\\b`, "g");
const WHOLE_ID = new RegExp(`^${ID_SOURCE}$`);
/** The test CVV a recorded card gets (the recording never holds the real one). */
const TEST_CVV = "123";

export const builtin = (name: (typeof BUILTIN_REFS)[number]) => `\${${name}}`;

export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** A step being built: its action and body now, its `save` once a later step refers to it. */
export interface Draft {
  fields: Record<string, unknown>;
  saveBase: string;
  save?: string;
  notes: string[];
}

/** Where an id was first seen: the step that saved it and the path in that step's saved body. */
interface Source {
  draft: Draft;
  path: string;
}

export class Builder {
  private readonly known = new Map<string, Source>();
  private readonly saveCounts = new Map<string, number>();
  private readonly nameCounts = new Map<string, number>();
  readonly drafts: Draft[] = [];
  readonly unplaced: string[] = [];
  private readonly cards: Map<string, string>;

  constructor(testCards: string[]) {
    this.cards = new Map();
    for (const n of testCards) {
      const mask = `${n.slice(0, 6)}${"*".repeat(Math.max(0, n.length - 10))}${n.slice(-4)}`;
      if (!this.cards.has(mask)) this.cards.set(mask, n);
    }
  }

  /** A step name, unique in the file ("card payment → SUCCEED", then "… (2)"). */
  name(text: string): string {
    const n = (this.nameCounts.get(text) ?? 0) + 1;
    this.nameCounts.set(text, n);
    return n === 1 ? text : `${text} (${n})`;
  }

  add(fields: Record<string, unknown>, saveBase: string): Draft {
    const draft: Draft = { fields, saveBase, notes: [] };
    this.drafts.push(draft);
    return draft;
  }

  /** Notes `id` as found at `path` of what `draft` saves. */
  learn(id: string, draft: Draft, path: string): void {
    if (!this.known.has(id)) this.known.set(id, { draft, path });
  }

  /** An earlier step answered this id. */
  knows(id: string): boolean {
    return this.known.has(id);
  }

  /** The `${name.path}` of an id an earlier step answered, naming that step's save on first use. */
  private refTo(id: string): string | undefined {
    const source = this.known.get(id);
    if (!source) return undefined;
    if (source.draft.save === undefined) {
      const n = (this.saveCounts.get(source.draft.saveBase) ?? 0) + 1;
      this.saveCounts.set(source.draft.saveBase, n);
      source.draft.save = `${source.draft.saveBase}${n}`;
    }
    return `\${${source.draft.save}${source.path ? `.${source.path}` : ""}}`;
  }

  /** Notes every id in an answer (and an echoed requestId) as coming from `draft`, at its path. */
  harvest(value: unknown, draft: Draft, path: string[] = [], key?: string): void {
    if (typeof value === "string") {
      if ((WHOLE_ID.test(value) || key === "requestId") && !this.known.has(value)) {
        this.known.set(value, { draft, path: path.join(".") });
      }
    } else if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) this.harvest(v, draft, [...path, String(i)]);
    } else if (isObject(value)) {
      for (const [k, v] of Object.entries(value)) this.harvest(v, draft, [...path, k], k);
    }
  }

  /** A string with every id from an earlier answer as its reference; an id from nowhere is noted. */
  refText(text: string, draft: Draft): string {
    return text.replace(ID_IN_TEXT, (id) => {
      const ref = this.refTo(id);
      if (ref) return ref;
      draft.notes.push(`${id} did not come from an earlier answer of this recording: put in the id this step needs`);
      return id;
    });
  }

  /** A recorded body as the step sends it. */
  body(value: unknown, draft: Draft, key?: string): unknown {
    if (typeof value === "string") {
      if (key === "requestId") return this.refTo(value) ?? builtin("uuid");
      if (key === "checksum") return builtin("checksum");
      if (key === "callbackUrl") return builtin("callbackUrl");
      if (MASK.test(value)) {
        const card = this.cards.get(value);
        if (card) return card;
        draft.notes.push(`card ${value} is no test card of this sandbox: this step cannot replay as is (put a card number in)`);
        return value;
      }
      return this.refText(value, draft);
    }
    if (Array.isArray(value)) return value.map((v) => this.body(v, draft));
    if (isObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = this.body(v, draft, k);
      // a card object (its `number` recorded as a mask) gets the test CVV its real one was dropped for
      if (typeof value.number === "string" && MASK.test(value.number) && out.cvv === undefined) out.cvv = TEST_CVV;
      return out;
    }
    return value;
  }
}
