/**
 * Unknown keys in a strict object (every control-plane body, scenario documents): which known key
 * was probably meant. One mechanism for every zod object that refuses unknown keys: zod hands its
 * error map the issue together with the object schema (`inst`), whose shape lists the known keys;
 * they are remembered here against the issue's `keys` array, which the reported issue keeps, so
 * whoever reports the issue (the HTTP error mapper, the scenario loader) can name the nearest key.
 * zod's own message is left as it is.
 */
import { distance } from "fastest-levenshtein";
import { z } from "zod";

const KNOWN = new WeakMap<readonly string[], readonly string[]>();

z.config({
  customError: (issue) => {
    if (issue.code !== "unrecognized_keys") return undefined;
    const shape = (issue.inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape;
    if (shape) KNOWN.set(issue.keys, Object.keys(shape));
    return undefined;
  },
});

/**
 * The known key `key` was most likely meant to be: the nearest by edit distance (case ignored),
 * if at most max(2, a third of its length) edits away and fewer edits than it has letters;
 * else undefined (nothing close enough to suggest).
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.min(Math.max(2, Math.floor(key.length / 3)), key.length - 1);
  for (const candidate of known) {
    const d = distance(lower, candidate.toLowerCase());
    if (d <= bestDistance && (best === undefined || d < distance(lower, best.toLowerCase()))) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/** ` (did you mean name?)` for an unknown key of a zod `unrecognized_keys` issue, or "" when nothing is near. */
export function didYouMean(key: string, issueKeys: readonly string[]): string {
  const known = KNOWN.get(issueKeys);
  const near = known && nearestKey(key, known);
  return near ? ` (did you mean ${near}?)` : "";
}
