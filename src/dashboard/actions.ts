/**
 * The dashboard's actions (docs/dashboard.md), each one call to the service that owns it and
 * recorded as the control-plane call it stands for (docs/recording.md).
 */
import type { CompleteRequest } from "../modules/transactions/transactions.wire.js";
import type { DashboardDeps } from "./deps.js";

/**
 * Every action the dashboard performs, each one call to the service that owns it (docs/control-plane.md
 * clock/advance, webhook replay, transaction complete): the one place to follow a rename.
 */
export type DashboardActions = ReturnType<typeof dashboardActions>;

export function dashboardActions(ctx: DashboardDeps) {
  /** An action as the control-plane call it stands for, in the recording (docs/recording.md). */
  const record = (kind: "advance" | "request", at: number, path: string, body: unknown, status: number, answer: unknown) =>
    ctx.recorder.record({
      kind,
      at,
      method: "POST",
      path,
      merchantKey: undefined,
      body: body === undefined ? undefined : JSON.stringify(body),
      status,
      response: JSON.stringify(answer),
    });
  return {
    advance: async (by: string | undefined) => {
      const at = ctx.clock.nowMs();
      const r = await ctx.control.advance({ by });
      record("advance", at, "/_sandbox/clock/advance", { by }, 200, { now: r.now });
      return r;
    },
    replay: (deliveryId: string) => {
      const at = ctx.clock.nowMs();
      const entry = ctx.journal.replay(deliveryId);
      record("request", at, `/_sandbox/webhooks/${encodeURIComponent(deliveryId)}/replay`, undefined, 201, { id: entry.id });
      return entry;
    },
    complete: (transactionId: string, input: CompleteRequest) => {
      const at = ctx.clock.nowMs();
      const r = ctx.transactions.complete(transactionId, input);
      const path = `/_sandbox/transactions/${encodeURIComponent(transactionId)}/complete`;
      record(
        "request",
        at,
        path,
        { status: input.status, ...(input.declineCode === undefined ? {} : { declineCode: input.declineCode }) },
        200,
        r,
      );
      return r;
    },
  };
}
