/**
 * One job: the catalogue of payment behaviours (docs/coverage.md#the-catalogue), assembled from the
 * code's own tables and the behaviours the modules define beside the code that produces them:
 * transactions (catalogue/transactions.ts), the shopper's pages, refunds refused over the remainder,
 * subscriptions' moves, webhooks, replays and conflicts of a requestId, error answers. Never a list
 * kept by hand: a new kind, status, decline code, method, move, chaos mode or error code is a new
 * behaviour. Each has a stable id, a title, its area and its cause, said as a hint.
 */
import { PAGE_BEHAVIOURS } from "../modules/apm/hosted-page.service.js";
import { IDEMPOTENCY } from "../modules/idempotency/idempotency.service.js";
import { REFUND_OVER_REMAINDER } from "../modules/refunds/refunds.service.js";
import { subscriptionBehaviours } from "../modules/subscriptions/subscriptions.behaviours.js";
import { AREAS, type Area, type Behaviour } from "../platform/behaviours.js";
import { WEBHOOK_REPLAYED } from "../webhooks/journal.js";
import { errorBehaviours } from "./catalogue/errors.js";
import { transactionBehaviours } from "./catalogue/transactions.js";
import { webhookBehaviours } from "./catalogue/webhooks.js";
import { hintOf } from "./hints.js";

/** A behaviour as reports show it: with its hint in words. */
export interface CatalogueEntry extends Behaviour {
  hint: string;
}

/** What each area is, for people. */
export const AREA_TITLES: Readonly<Record<Area, string>> = {
  card: "Card payments and 3DS",
  tokens: "Tokens and one-click charges",
  subscriptions: "Subscriptions",
  refunds: "Refunds",
  payouts: "Payouts",
  apm: "APM pay-ins, QR and wallets",
  webhooks: "Webhooks",
  idempotency: "Idempotency",
  errors: "Error answers",
};

function build(): CatalogueEntry[] {
  const all: Behaviour[] = [
    ...transactionBehaviours(),
    ...PAGE_BEHAVIOURS,
    REFUND_OVER_REMAINDER,
    ...subscriptionBehaviours(),
    ...webhookBehaviours(),
    WEBHOOK_REPLAYED,
    IDEMPOTENCY.replayed,
    IDEMPOTENCY.conflict,
    ...errorBehaviours(),
  ];
  const seen = new Set<string>();
  for (const b of all) {
    if (seen.has(b.id)) throw new Error(`coverage: behaviour ${b.id} is defined twice (src/coverage/catalogue.ts)`);
    seen.add(b.id);
  }
  // by area, in the order of AREAS; within an area as defined
  return AREAS.flatMap((area) => all.filter((b) => b.area === area)).map((b) => ({ ...b, hint: hintOf(b.cause) }));
}

let built: CatalogueEntry[] | undefined;

/** Every behaviour, by area (built on first use, then kept). */
export function catalogue(): readonly CatalogueEntry[] {
  built ??= build();
  return built;
}

let byId: Map<string, CatalogueEntry> | undefined;

/** A behaviour by its id. */
export function behaviourOf(id: string): CatalogueEntry | undefined {
  byId ??= new Map(catalogue().map((b) => [b.id, b]));
  return byId.get(id);
}
