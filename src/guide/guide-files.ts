/**
 * Where the guides are: README.md and docs/*.md of the package, found at run time
 * from the package root (the folder whose package.json is paysandbox's), the same from src/ (tsx,
 * vitest), from dist/ (the built server) and from an installed package. Only names the guide
 * allows are read: a page `docs/{name}.md` with name `[a-z0-9-]+`, an image `docs/images/{name}`;
 * nothing else of the file system is reachable through it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** A page's name: docs/{name}.md. */
export const PAGE_NAME = /^[a-z0-9-]+$/;
/** An image's name under docs/images/. */
export const IMAGE_NAME = /^[a-z0-9-]+\.(png|svg|jpg|jpeg|gif|webp)$/;

/** The folder of paysandbox's package.json above `from` (this module's folder by default). */
export function packageRoot(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      try {
        if ((JSON.parse(readFileSync(file, "utf8")) as { name?: unknown }).name === "paysandbox") return dir;
      } catch {
        // not ours
      }
    }
    if (dirname(dir) === dir) return undefined;
  }
}

export interface GuideFile {
  /** Relative to the package root, with forward slashes: `README.md`, `docs/x.md`. */
  file: string;
  text: string;
  /** Last modified (ms): a rendering is kept until the file changes. */
  mtimeMs: number;
}

export interface PageEntry {
  name: string;
  title: string;
}

/** The first `# ` heading of a Markdown text, without its inline code marks. */
const titleOf = (text: string, fallback: string) => /^# (.+)$/m.exec(text)?.[1]?.replace(/`/g, "").trim() ?? fallback;

export class GuideFiles {
  constructor(readonly root: string) {}

  /** The front page: README.md. */
  front(): GuideFile | undefined {
    return this.read("README.md");
  }

  /** docs/{name}.md, when the name is a page name and the file exists. */
  page(name: string): GuideFile | undefined {
    return PAGE_NAME.test(name) ? this.read(`docs/${name}.md`) : undefined;
  }

  /** Every page of docs/, by name, with its title. */
  pages(): PageEntry[] {
    let names: string[];
    try {
      names = readdirSync(join(this.root, "docs"));
    } catch {
      return [];
    }
    return names
      .filter((n) => n.endsWith(".md") && PAGE_NAME.test(n.slice(0, -3)))
      .sort()
      .map((n) => {
        const name = n.slice(0, -3);
        return { name, title: titleOf(this.page(name)?.text ?? "", name) };
      });
  }

  /** docs/images/{name}, when the name is an image name and the file exists. */
  image(name: string): Buffer | undefined {
    if (!IMAGE_NAME.test(name)) return undefined;
    try {
      return readFileSync(join(this.root, "docs", "images", name));
    } catch {
      return undefined;
    }
  }

  private read(file: string): GuideFile | undefined {
    const path = join(this.root, ...file.split("/"));
    try {
      const st = statSync(path);
      if (!st.isFile()) return undefined;
      return { file, text: readFileSync(path, "utf8"), mtimeMs: st.mtimeMs };
    } catch {
      return undefined;
    }
  }
}
