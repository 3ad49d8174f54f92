/**
 * Giving freed memory back to the system (docs/performance.md "Sandboxes at once"). A memory
 * database is its image copied into one block of C memory, which closing it frees. On Linux with
 * glibc, a freed block of a few MB stays with the process: once one large block has been freed,
 * glibc serves blocks of that size from its heap instead of fresh mappings, and keeps freed heap
 * pages for later. 100 deleted memory forks of a 3.8 MB world left ~400 MB in the server's RSS,
 * all of it released by one `malloc_trim(0)`.
 *
 * Node has no call for `malloc_trim`. SQLite's extension loader does: it loads a shared library
 * and calls a named function in it with the connection as its first argument. Named
 * `malloc_trim` in libc, that is `malloc_trim(pad)` with a pad larger than any heap, which gives
 * back every free page inside the heaps (and nothing from their tops, which glibc trims itself).
 * It returns 1 when it released memory, which SQLite reports as a failed initialisation (the
 * answer expected here); 0 when there was nothing. Where there is no glibc (macOS, musl) the
 * library or the function is missing: the call is never tried again.
 */
import type Database from "better-sqlite3";
import { Sqlite } from "./sqlite-driver.js";

/** `released`: free pages went back to the system; `nothing`: there were none; `unavailable`: not glibc. */
export type GiveBack = "released" | "nothing" | "unavailable";

/** better-sqlite3 takes the entry point as a second argument; its types do not say so. */
type Loader = Database.Database & { loadExtension(file: string, entryPoint: string): void };

let caller: Loader | undefined;
let unavailable = process.platform !== "linux";

/** Frees' pages handed back to the system (glibc's `malloc_trim`); one call walks the heap (~50 ms for 400 MB freed). */
export function giveBackFreedMemory(): GiveBack {
  if (unavailable) return "unavailable";
  try {
    caller ??= new Sqlite(":memory:") as Loader;
    caller.loadExtension("libc.so.6", "malloc_trim");
    // a 0 leaves libc listed as one of its extensions: a new connection next time keeps no list
    caller.close();
    caller = undefined;
    return "nothing";
  } catch (err) {
    // malloc_trim's 1, as SQLite words a non-zero answer of an extension's entry point
    if (/^error during initialization/.test((err as Error).message)) return "released";
    unavailable = true;
    caller?.close();
    caller = undefined;
    return "unavailable";
  }
}
