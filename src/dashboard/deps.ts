/** The dashboard's dependencies, as the composition root hands them over. */
import type { Config } from "../config.js";
import type { ControlService } from "../control/control.service.js";
import type { CoverageService } from "../coverage/coverage.service.js";
import type { Db } from "../db/client.js";
import type { EventLog } from "../events/event-log.js";
import type { TransactionLifecycle } from "../modules/transactions/lifecycle.js";
import type { Clock } from "../platform/clock.js";
import type { Recorder } from "../recording/recorder.js";
import type { RecordingDeps } from "../recording/recording.handlers.js";
import type { Lineage } from "../snapshots/images.js";
import type { WebhookJournal } from "../webhooks/journal.js";
import type { SandboxListItem } from "./sandboxes.view.js";

/** What the dashboard reads and does: a few services of its sandbox's composition. */
export interface DashboardDeps {
  config: Pick<Config, "adminToken" | "db">;
  db: Db;
  clock: Clock;
  control: ControlService;
  journal: WebhookJournal;
  transactions: TransactionLifecycle;
  /** The live events the pages follow (docs/events.md). */
  events: EventLog;
  publicUrl: () => string;
  /** The server's other sandboxes (the root only). */
  sandboxList?: (() => readonly SandboxListItem[]) | undefined;
  /** A copy of this sandbox as a new one of the server (docs/snapshots.md); none outside a server. */
  fork?: (() => Promise<{ id: string; baseUrl: string }>) | undefined;
  /** What its snapshot says it came from (docs/snapshots.md). */
  lineage: Lineage;
  /** What is done here, the dashboard's own actions included, for the recording (docs/recording.md). */
  recorder: Recorder;
  scenarios: RecordingDeps["scenarios"];
  /** Which payment behaviours happened here (the Coverage page, docs/coverage.md). */
  coverage: Pick<CoverageService, "report">;
}
