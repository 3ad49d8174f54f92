/**
 * The outcome engine (house style 11; CONTRACT §3 test cards, §6 cards and rules): the ONLY
 * place that decides what a card does. Inputs are data — fixtures/test-cards.json and every
 * loaded scenario's `cards` and `rules` — never `if (number === ...)` in a service.
 *
 * A card is resolved once, at the edge, to an opaque profile key that is stored instead of
 * the number; `decide` maps a profile + flow + amount to an OutcomeSpec.
 *
 * LIMITATIONS:
 * - amount rules apply to payments and charges (CONTRACT §6), not to payouts;
 * - a profile whose scenario was dropped by a reset falls back to the default outcome.
 */
import { type OutcomeSpec, TEST_CARDS, type TestCard } from "../platform/fixtures.js";
import { digitsOf, isCurrency } from "../platform/money.js";
import type { ScenarioCard, ScenarioRule } from "./scenario.schema.js";
import type { ScenarioService } from "./scenario.service.js";

/** Customer-initiated payment, first/later recurring charge, payout. */
export type Flow = "payment" | "recurring_first" | "recurring_later" | "payout";

export interface DecideInput {
  profile: string;
  flow: Flow;
  amountMinor: number;
  currency: string;
  threeDSRequested: boolean;
}

export const DEFAULT_PROFILE = "default";

type CardColumns = { [F in Flow]?: OutcomeSpec };

/** Flows without a shopper present: a 3DS outcome cannot happen there. */
const MERCHANT_INITIATED: ReadonlySet<Flow> = new Set(["recurring_later", "payout"]);

const columnsOfTestCard = (c: TestCard): CardColumns => ({
  payment: c.payment,
  recurring_first: c.recurring.first,
  recurring_later: c.recurring.later,
  payout: c.payout,
});

const columnsOfScenarioCard = (c: ScenarioCard): CardColumns => ({
  payment: c.payment,
  recurring_first: c.recurring?.first,
  recurring_later: c.recurring?.later,
  payout: c.payout,
});

/** `"13.370"` → `"13.37"`, `"13.00"` → `"13"`: one spelling per amount. */
function canonicalAmount(text: string): string {
  const [whole = "0", fraction = ""] = text.split(".");
  const w = whole.replace(/^0+(?=\d)/, "");
  const f = fraction.replace(/0+$/, "");
  return f ? `${w}.${f}` : w;
}

function minorToCanonical(minor: number, currency: string): string {
  const digits = isCurrency(currency) ? digitsOf(currency) : 2;
  const s = String(minor).padStart(digits + 1, "0");
  return canonicalAmount(digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`);
}

export class OutcomeEngine {
  private byNumber: Map<string, string> | undefined;
  private byProfile: Map<string, CardColumns> | undefined;
  private rules: ScenarioRule[] | undefined;

  constructor(private readonly scenarios: ScenarioService) {
    scenarios.onChange(() => {
      this.byNumber = undefined;
      this.byProfile = undefined;
      this.rules = undefined;
    });
  }

  /**
   * The profile key stored instead of a card number (tokens, transactions): `test:<i>` for a
   * fixtures card, `scenario:<name>:<i>` for a scenario card (a later scenario wins), else
   * `default`. Never contains the number.
   */
  profileFor(number: string): string {
    this.build();
    return this.byNumber?.get(number) ?? DEFAULT_PROFILE;
  }

  /**
   * What happens to one attempt. Precedence: scenario amount rules (amount, and currency when
   * the rule names one) > the card's column for the flow > default SUCCEED. A SUCCEED with
   * 3DS requested becomes CUSTOMER_VERIFICATION (CONTRACT §3); merchant-initiated flows
   * (recurring_later, payout) never ask for 3DS, so their 3DS outcome becomes SUCCEED.
   */
  decide(input: DecideInput): OutcomeSpec {
    this.build();
    const rule = input.flow === "payout" ? undefined : this.matchRule(input.amountMinor, input.currency);
    let spec: OutcomeSpec = rule
      ? stripUndefined({
          status: rule.status,
          declineCode: rule.declineCode,
          completeAfter: rule.completeAfter,
          completeWith: rule.completeWith,
        })
      : (this.byProfile?.get(input.profile)?.[input.flow] ?? { status: "SUCCEED" });
    if (MERCHANT_INITIATED.has(input.flow)) {
      if (spec.status === "CUSTOMER_VERIFICATION") spec = { status: "SUCCEED" };
    } else if (input.threeDSRequested && spec.status === "SUCCEED") {
      spec = { status: "CUSTOMER_VERIFICATION" };
    }
    return spec;
  }

  private matchRule(amountMinor: number, currency: string): ScenarioRule | undefined {
    if (!this.rules?.length) return undefined;
    const amount = minorToCanonical(amountMinor, currency);
    // the last loaded scenario's rule wins, like its cards
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const r = this.rules[i]!;
      if ((r.currency === undefined || r.currency === currency) && canonicalAmount(r.amount) === amount) return r;
    }
    return undefined;
  }

  private build(): void {
    if (this.byNumber && this.byProfile && this.rules) return;
    const byNumber = new Map<string, string>();
    const byProfile = new Map<string, CardColumns>();
    const rules: ScenarioRule[] = [];
    TEST_CARDS.forEach((c, i) => {
      byNumber.set(c.number, `test:${i}`);
      byProfile.set(`test:${i}`, columnsOfTestCard(c));
    });
    for (const s of this.scenarios.all()) {
      s.cards.forEach((c, i) => {
        const key = `scenario:${s.name}:${i}`;
        byNumber.set(c.number, key);
        byProfile.set(key, columnsOfScenarioCard(c));
      });
      rules.push(...s.rules);
    }
    this.byNumber = byNumber;
    this.byProfile = byProfile;
    this.rules = rules;
  }
}

function stripUndefined(spec: OutcomeSpec): OutcomeSpec {
  return Object.fromEntries(Object.entries(spec).filter(([, v]) => v !== undefined)) as unknown as OutcomeSpec;
}
