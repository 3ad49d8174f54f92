/**
 * The root dashboard's list of the server's other sandboxes (docs/parallel-suites.md), each a link to its own
 * dashboard, with its Fork and Download snapshot (docs/snapshots.md). Only the root has them; a sandbox's dashboard shows its own data alone.
 */
import type { FC } from "hono/jsx";

export interface SandboxListItem {
  id: string;
  name: string | null;
  baseUrl: string;
  now: string;
  lastUsedAt: string;
  expiresAt: string;
}

const when = (iso: string) => iso.replace("T", " ").replace(/\.\d+Z$/, "");

export const SandboxesPanel: FC<{ sandboxes: readonly SandboxListItem[] }> = ({ sandboxes }) => (
  <section class="panel" aria-labelledby="sandboxes-heading">
    <h2 id="sandboxes-heading">Sandboxes ({sandboxes.length})</h2>
    <table id="sandboxes">
      <caption>Isolated sandboxes of this server, oldest first; each has its own clock and data</caption>
      <thead>
        <tr>
          <th scope="col">Sandbox</th>
          <th scope="col">Name</th>
          <th scope="col">Virtual time (UTC)</th>
          <th scope="col">Last used (UTC)</th>
          <th scope="col">Expires (UTC)</th>
          <th scope="col">Copies</th>
        </tr>
      </thead>
      <tbody>
        {sandboxes.map((s) => (
          <tr>
            <td>
              <a class="mono" href={`/sandboxes/${encodeURIComponent(s.id)}/`}>
                {s.id}
              </a>
            </td>
            <td>{s.name ?? ""}</td>
            <td class="mono small">{when(s.now)}</td>
            <td class="mono small">{when(s.lastUsedAt)}</td>
            <td class="mono small">{when(s.expiresAt)}</td>
            <td class="actions">
              {/* the sandbox's own dashboard actions (docs/snapshots.md) */}
              <form method="post" action={`/sandboxes/${encodeURIComponent(s.id)}/dashboard/fork`}>
                <button type="submit" name="fork" value={s.id} title={`A new sandbox, a copy of ${s.id} now`}>
                  Fork
                </button>
              </form>{" "}
              <a href={`/sandboxes/${encodeURIComponent(s.id)}/dashboard/snapshot`} download>
                Download snapshot
              </a>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  </section>
);
