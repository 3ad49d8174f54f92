/**
 * Reads the form of a sandbox HTML page (the 3DS challenge, the hosted payment page: docs/run.md)
 * the way a plain browser form post would use it: no script runs.
 */
export interface Form {
  method: string;
  action: string;
  /** name → value of the form's inputs (the `outcome` buttons aside), in page order. */
  inputs: Map<string, string>;
  /** The values of the `outcome` submit buttons. */
  outcomes: string[];
}

const attr = (tag: string, name: string): string | undefined => {
  const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, "i").exec(tag);
  const raw = m ? (m[1] ?? m[2] ?? m[3]) : undefined;
  return raw
    ?.replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
};

/** The first form of a page: its method, action, inputs and outcome buttons (no script runs, as with a plain browser form post). */
export function readForm(html: string): Form | undefined {
  const open = /<form\b[^>]*>/i.exec(html);
  if (!open) return undefined;
  const end = html.indexOf("</form>", open.index);
  const inner = html.slice(open.index, end === -1 ? undefined : end);
  const inputs = new Map<string, string>();
  const outcomes: string[] = [];
  for (const m of inner.matchAll(/<(input|select|textarea|button)\b[^>]*>/gi)) {
    const tag = m[0];
    const name = attr(tag, "name");
    if (!name) continue;
    const type = (attr(tag, "type") ?? (m[1]?.toLowerCase() === "button" ? "submit" : "text")).toLowerCase();
    if (name === "outcome" && type === "submit") {
      outcomes.push(attr(tag, "value") ?? "");
      continue;
    }
    if (type === "submit" || type === "button") continue;
    inputs.set(name, attr(tag, "value") ?? "");
  }
  return { method: (attr(open[0], "method") ?? "GET").toUpperCase(), action: attr(open[0], "action") ?? "", inputs, outcomes };
}
