/**
 * A transaction's history as far as the data shows it (docs/dashboard.md): the rows keep only the
 * current status, so the status changes come from the webhook deliveries each change enqueued
 * (their eventStatus and time), and the refunds and other children from parent_id.
 */
import type { DeliveryRow, TransactionListRow, TransactionRow } from "./dashboard.repo.js";
import { kindLabel } from "./format.js";

export interface TimelineEvent {
  at: number;
  title: string;
  status?: string | undefined;
  /** A transaction or delivery this event is about. */
  ref?: { id: string; href: string } | undefined;
  note?: string | undefined;
}

/** Events oldest first; ties keep the order they were found in (creation, deliveries, children). */
export function buildTimeline(row: TransactionRow, deliveries: DeliveryRow[], children: TransactionListRow[]): TimelineEvent[] {
  const events: TimelineEvent[] = [
    { at: row.createdAt, title: "Created", note: row.requestId ? `requestId ${row.requestId}` : undefined },
  ];
  let lastStatus: string | undefined;
  for (const d of deliveries) {
    const ref = { id: d.id, href: `#delivery-${d.id}` };
    if (d.replayOf) {
      events.push({ at: d.createdAt, title: "Webhook replayed", status: d.eventStatus, ref, note: `replay of ${d.replayOf}` });
    } else if (d.eventStatus !== lastStatus) {
      events.push({ at: d.createdAt, title: "Status", status: d.eventStatus, ref, note: "webhook enqueued" });
      lastStatus = d.eventStatus;
    }
  }
  for (const c of children) {
    events.push({
      at: c.createdAt,
      title: kindLabel(c.kind),
      status: c.status,
      ref: { id: c.id, href: `/dashboard/transactions/${encodeURIComponent(c.id)}` },
    });
  }
  // the current status when no webhook reported it (no callbackUrl, or a change without one)
  if (row.status !== lastStatus) {
    events.push({
      at: row.updatedAt,
      title: row.updatedAt === row.createdAt ? "Status at creation" : "Status",
      status: row.status,
    });
  }
  return events
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.at - b.e.at || a.i - b.i)
    .map(({ e }) => e);
}
