/**
 * Screenshots of the real pages for the docs: the browser suites take them as they
 * drive the dashboard, the 3DS page and the hosted pages. Every run takes the picture and checks it
 * is a PNG of the docs' size that shows something (not one colour); it is written into docs/images/
 * only when asked (`UPDATE_SCREENSHOTS=1`, i.e. `npm run docs:screenshots`) or when the file is
 * missing, so `npm test` leaves the tree as it was. The servers of these suites start at a fixed
 * virtual time, so a new picture differs from the old one only where the page really changed.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { PNG } from "pngjs";
import { expect } from "vitest";
import { ROOT } from "./server.js";

export const DOC_IMAGES = join(ROOT, "docs", "images");
/** The docs' pictures: small enough to read on GitHub without scaling, and to keep the PNGs small. */
export const DOC_VIEWPORT = { width: 1200, height: 800 };

export const updateScreenshots = () => process.env.UPDATE_SCREENSHOTS === "1";

/** The distinct colours among a sample of the image's pixels (every 7th), up to `cap`. */
function colours(png: PNG, cap = 64): number {
  const seen = new Set<number>();
  for (let i = 0; i < png.data.length && seen.size < cap; i += 4 * 7) {
    seen.add(png.data.readUInt32BE(i));
  }
  return seen.size;
}

/**
 * The page at the docs' viewport as `docs/images/{name}` (see above); the page's own viewport is put
 * back afterwards. Returns the PNG's bytes.
 */
export async function docScreenshot(page: Page, name: string): Promise<Buffer> {
  const before = page.viewportSize();
  await page.setViewportSize(DOC_VIEWPORT);
  let bytes: Buffer;
  try {
    bytes = await page.screenshot({ type: "png", animations: "disabled", caret: "hide" });
  } finally {
    if (before) await page.setViewportSize(before);
  }
  const png = PNG.sync.read(bytes);
  expect([png.width, png.height], `${name}: size`).toEqual([DOC_VIEWPORT.width, DOC_VIEWPORT.height]);
  expect(colours(png), `${name}: a blank picture`).toBeGreaterThan(8);
  expect(bytes.length, `${name}: bytes`).toBeLessThan(400_000);
  const file = join(DOC_IMAGES, name);
  if (updateScreenshots() || !existsSync(file)) {
    mkdirSync(DOC_IMAGES, { recursive: true });
    writeFileSync(file, bytes);
    console.log(`docs screenshot written: ${file}`);
  }
  return bytes;
}
