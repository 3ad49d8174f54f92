/**
 * Currency conversion at authorization (docs/scenarios.md): a merchant with a processingCurrency is
 * charged processedAmount = orderAmount × rate(processed)/rate(order), half-up at the processed
 * currency's precision. Rates are units per 1 EUR: fixtures/fx-rates.json, overridden by every
 * loaded scenario's `fxRates` (the last loaded wins).
 */
import { FX_RATES } from "../../platform/fixtures.js";
import { convert } from "../../platform/money.js";
import type { ScenarioService } from "../../scenarios/scenario.service.js";

export interface FxResult {
  processedCurrency: string;
  processedAmount: number;
  /** Decimal string of processed per order unit ("1" when no conversion). */
  conversionRate: string;
}

export class FxRates {
  private table: Map<string, number> | undefined;

  constructor(private readonly scenarios: ScenarioService) {}

  /** The scenarios changed (the composition root registers this with them): the rates are read again. */
  forget(): void {
    this.table = undefined;
  }

  /** Units of `currency` per 1 EUR, or undefined when no rate is known. */
  rate(currency: string): number | undefined {
    if (!this.table) {
      const t = new Map(Object.entries(FX_RATES));
      for (const s of this.scenarios.all()) for (const [c, r] of Object.entries(s.fxRates)) t.set(c, r);
      this.table = t;
    }
    return this.table.get(currency);
  }

  /**
   * The processed side of an order (docs/scenarios.md). No processingCurrency, or the same currency →
   * unchanged with rate "1". Undefined when a rate is missing (the caller declines with 15).
   */
  apply(amountMinor: number, orderCurrency: string, processingCurrency: string | null): FxResult | undefined {
    if (!processingCurrency || processingCurrency === orderCurrency) {
      return { processedCurrency: orderCurrency, processedAmount: amountMinor, conversionRate: "1" };
    }
    const from = this.rate(orderCurrency);
    const to = this.rate(processingCurrency);
    if (from === undefined || to === undefined) return undefined;
    return {
      processedCurrency: processingCurrency,
      processedAmount: convert(amountMinor, orderCurrency, processingCurrency, from, to),
      conversionRate: ratio(to, from),
    };
  }
}

/** `to / from` as a decimal string with at most 10 fraction digits (half-up), trailing zeros dropped. */
export function ratio(to: number, from: number): string {
  const [tn, td] = rational(to);
  const [fn, fd] = rational(from);
  const scale = 10n ** 10n;
  const num = tn * fd * scale;
  const den = td * fn;
  const q = (2n * num + den) / (2n * den);
  const whole = q / scale;
  const frac = (q % scale).toString().padStart(10, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : `${whole}`;
}

function rational(value: number): [bigint, bigint] {
  let s = String(value);
  if (/e/i.test(s)) s = value.toFixed(20).replace(/0+$/, "").replace(/\.$/, "");
  const [w = "0", f = ""] = s.split(".");
  return [BigInt(w + f), 10n ** BigInt(f.length)];
}
