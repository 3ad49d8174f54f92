/**
 * The outcome engine (outcomes are data: docs/cards.md#test-cards, docs/scenarios.md#rules): the ONLY
 * place that decides what a card does. Inputs are data — fixtures/test-cards.json and every
 * loaded scenario's `cards` and `rules` — never `if (number === ...)` in a service.
 *
 * A card is resolved once, at the edge, to an opaque profile key that is stored instead of
 * the number; `decide` maps a profile + flow + amount to an OutcomeSpec.
 *
 * Rules carry an `operation` (docs/scenarios.md): `payment` (the default: card payments, one-click
 * and subscription charges, APM pay-ins), `refund`, `payout`. A scenario card's column that is
 * not given follows its `payment` column.
 *
 * LIMITATIONS:
 * - refunds have no card column: only rules decide them (default SUCCEED);
 * - a profile whose scenario was dropped by a reset falls back to the default outcome.
 */
import { type Flow, type OutcomeSpec, TEST_CARDS, type TestCard } from "../platform/fixtures.js";
import { digitsOf, isCurrency } from "../platform/money.js";
import type { RuleOperation, ScenarioCard, ScenarioRule } from "./scenario.schema.js";
import type { ScenarioService } from "./scenario.service.js";

/** Customer-initiated payment, first/later recurring charge, payout, refund. */
export type { Flow } from "../platform/fixtures.js";

/** The rule `operation` a flow answers to. */
export const operationOf = (flow: Flow): RuleOperation =>
  flow === "payout" ? "payout" : flow === "refund" ? "refund" : "payment";

export interface DecideInput {
  profile: string;
  flow: Flow;
  amountMinor: number;
  currency: string;
  threeDSRequested: boolean;
}

export const DEFAULT_PROFILE = "default";

type CardColumns = { [F in Exclude<Flow, "refund">]?: OutcomeSpec };

/** Flows without a shopper present: a 3DS outcome cannot happen there. */
const MERCHANT_INITIATED: ReadonlySet<Flow> = new Set(["recurring_later", "payout", "refund"]);

const columnsOfTestCard = (c: TestCard): CardColumns => ({
  payment: c.payment,
  recurring_first: c.recurring.first,
  recurring_later: c.recurring.later,
  payout: c.payout,
});

/** A column that is not given follows the `payment` column (docs/scenarios.md). */
const columnsOfScenarioCard = (c: ScenarioCard): CardColumns => ({
  payment: c.payment,
  recurring_first: c.recurring?.first ?? c.payment,
  recurring_later: c.recurring?.later ?? c.payment,
  payout: c.payout ?? c.payment,
});

/** Profile of a number that only a rule's `card` names (no column: default outcomes). */
const RULE_CARD_PREFIX = "rule-card:";

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
  private faults: boolean | undefined;

  constructor(private readonly scenarios: ScenarioService) {}

  /** The scenarios changed (the composition root registers this with them): what was read from them is read again. */
  forget(): void {
    this.byNumber = undefined;
    this.byProfile = undefined;
    this.rules = undefined;
    this.faults = undefined;
  }

  /**
   * Whether some loaded rule is an API fault (docs/scenarios.md#api-faults): until one is, a create
   * route's fault middleware goes on at once, without reading the body.
   */
  hasFaultRules(): boolean {
    this.build();
    this.faults ??= (this.rules ?? []).some((r) => r.httpStatus !== undefined || r.latencyMs !== undefined);
    return this.faults;
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
   * What happens to one attempt. Precedence: the last matching scenario rule with an outcome
   * (its amount, currency, card and operation all match) > the card's column for the flow >
   * default SUCCEED. A SUCCEED with 3DS requested becomes CUSTOMER_VERIFICATION (docs/scenarios.md);
   * merchant-initiated flows (recurring_later, payout, refund) never ask for 3DS, so their 3DS
   * outcome becomes SUCCEED.
   */
  decide(input: DecideInput): OutcomeSpec {
    this.build();
    const rule = this.matchRule(input, (r) => r.status !== undefined);
    let spec: OutcomeSpec = rule?.status
      ? stripUndefined({
          status: rule.status,
          declineCode: rule.declineCode,
          completeAfter: rule.completeAfter,
          completeWith: rule.completeWith,
        })
      : ((input.flow === "refund" ? undefined : this.byProfile?.get(input.profile)?.[input.flow]) ?? { status: "SUCCEED" });
    if (MERCHANT_INITIATED.has(input.flow)) {
      if (spec.status === "CUSTOMER_VERIFICATION") spec = { status: "SUCCEED" };
    } else if (input.threeDSRequested && spec.status === "SUCCEED") {
      spec = { status: "CUSTOMER_VERIFICATION" };
    }
    return spec;
  }

  /**
   * The last loaded rule (a later scenario's rule wins, like its cards) that matches the attempt
   * and passes `useful` (rules with an outcome for `decide`, fault rules for the API faults).
   */
  matchRule(
    input: Pick<DecideInput, "profile" | "flow" | "amountMinor" | "currency">,
    useful: (r: ScenarioRule) => boolean = () => true,
  ): ScenarioRule | undefined {
    this.build();
    if (!this.rules?.length) return undefined;
    const amount = minorToCanonical(input.amountMinor, input.currency);
    const operation = operationOf(input.flow);
    for (let i = this.rules.length - 1; i >= 0; i--) {
      const r = this.rules[i]!;
      if ((r.operation ?? "payment") !== operation || !useful(r)) continue;
      if (r.currency !== undefined && r.currency !== input.currency) continue;
      if (r.amount !== undefined && canonicalAmount(r.amount) !== amount) continue;
      if (r.card !== undefined && this.byNumber?.get(r.card) !== input.profile) continue;
      return r;
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
    // a number only a rule names gets a profile of its own, so the rule can recognise it later
    rules.forEach((r, i) => {
      if (r.card !== undefined && !byNumber.has(r.card)) byNumber.set(r.card, `${RULE_CARD_PREFIX}${i}`);
    });
    this.byNumber = byNumber;
    this.byProfile = byProfile;
    this.rules = rules;
  }
}

function stripUndefined(spec: OutcomeSpec): OutcomeSpec {
  return Object.fromEntries(Object.entries(spec).filter(([, v]) => v !== undefined)) as unknown as OutcomeSpec;
}
