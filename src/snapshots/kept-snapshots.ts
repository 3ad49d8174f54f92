/**
 * Snapshot files loaded before, kept by their checksum (docs/snapshots.md#loading-a-file-again): a
 * suite whose every test file loads one fixture pays the check of that file once. What a file's
 * first load learnt is kept: its image checked and brought up to date (in shared memory), its clock's
 * now, its description, its bytes (the image is a view into them unless it was migrated), and once
 * a sandbox of it has opened, when the work it holds falls due. A file whose checksum is kept is only
 * verified by the image thread, off the event loop: its bytes compared with the kept file's (a
 * SHA-256 over them when they differ: the same checksum is the same bytes); its sandbox is made from
 * the kept image as a fork is made from its source's. What is kept is bounded in bytes (files, and
 * migrated images), the least recently loaded let go first; a file larger than the bound is not kept.
 */
import { checkedSnapshot, verifiedSnapshot } from "./image-thread.js";
import type { LoadedSnapshot } from "./load.js";
import { checksumOf, HEADER_BYTES } from "./snapshot-file.js";

/** A checked snapshot file, and what is known of it. */
export interface KeptSnapshot extends LoadedSnapshot {
  /** The SHA-256 in its header (hex), which its bytes were verified against. */
  checksum: string;
  /**
   * When the work a sandbox loaded from it holds falls due (virtual ms; `at` undefined: none), once a
   * sandbox of it has opened and said; undefined until then.
   */
  due: { at: number | undefined } | undefined;
}

/**
 * Bytes kept unless told (SANDBOX_SNAPSHOT_KEEP_MB, docs/configuration.md): a suite's few fixtures;
 * the 10,000-payment world's 18 MB file three times, or once with its image when it was migrated.
 */
export const KEEP_SNAPSHOT_BYTES = 64 * 1024 * 1024;

export class KeptSnapshots {
  /** By checksum, least recently loaded first. */
  private readonly kept = new Map<string, KeptSnapshot>();
  private bytes = 0;

  /**
   * `maxBytes`: the bytes kept at most (0: none); `forgot`: called with the checksum of each let go (what was
   * made for it goes too).
   */
  constructor(
    private readonly maxBytes: number = KEEP_SNAPSHOT_BYTES,
    private readonly forgot: (checksum: string) => void = () => undefined,
  ) {}

  /**
   * A snapshot file as a state this build opens, or its 400 (the file's header, checksum, database:
   * load.ts): the kept one when a file of its checksum was loaded before and its bytes match it.
   * `bytes` is handed over to the image thread: do not use it afterwards.
   */
  async load(bytes: Buffer): Promise<KeptSnapshot> {
    // read before the bytes are handed over; only trusted once the thread has verified them
    const checksum = bytes.length >= HEADER_BYTES ? checksumOf(bytes) : "";
    const had = this.kept.get(checksum);
    if (had) {
      await verifiedSnapshot(bytes, had.file);
      this.use(had);
      return had;
    }
    const snap: KeptSnapshot = { ...(await checkedSnapshot(bytes)), checksum, due: undefined };
    // a first load of the same file finished meanwhile: one of them is kept
    const raced = this.kept.get(checksum);
    if (raced) {
      this.use(raced);
      return raced;
    }
    if (sizeOf(snap) <= this.maxBytes) {
      this.kept.set(checksum, snap);
      this.bytes += sizeOf(snap);
      this.trim();
    }
    return snap;
  }

  /** Whether the file of `checksum` is kept now. */
  has(checksum: string): boolean {
    return this.kept.has(checksum);
  }

  /** Bytes of the images kept now. */
  get keptBytes(): number {
    return this.bytes;
  }

  private use(snap: KeptSnapshot): void {
    if (this.kept.get(snap.checksum) !== snap) return;
    this.kept.delete(snap.checksum);
    this.kept.set(snap.checksum, snap);
  }

  private trim(): void {
    for (const [checksum, snap] of this.kept) {
      if (this.bytes <= this.maxBytes) return;
      this.kept.delete(checksum);
      this.bytes -= sizeOf(snap);
      this.forgot(checksum);
    }
  }
}

/** The memory a kept file holds: its bytes, and its image when that is not a view into them (a migrated one). */
const sizeOf = (snap: KeptSnapshot) => snap.file.length + (snap.image.buffer === snap.file.buffer ? 0 : snap.image.length);
