/**
 * A streaming ZIP writer (PKWARE APPNOTE 6.3: local headers, data descriptors, central directory)
 * made of Node's zlib, synchronous, for the .xlsx report (an Office Open XML package is a zip of
 * XML parts). Synchronous so that the same bytes come out wherever it runs (the report's worker
 * thread, or the request's thread for `:memory:` databases) and so that a caller bounds its own
 * slices of work. One entry streams at a time: `entry()`, `write()` any number of times, `close()`.
 *
 * A streamed entry is deflated in independent pieces, each ended by a sync flush (byte-aligned,
 * not final) and the entry by an empty final block: a valid deflate stream that never holds more
 * than one piece (what pigz does). Output is deterministic: fixed timestamps, no extra fields.
 *
 * LIMITATIONS:
 * - no ZIP64: an entry or the archive past 4 GiB is refused with an error (Excel opens ZIP64
 *   parts badly; a 1,000,000-row report sheet is ~0.4 GiB of XML).
 */
import { constants, deflateRawSync, crc32 as nodeCrc32 } from "node:zlib";

/** Deflate level: 1 (fastest); a report's XML repeats itself enough that it still shrinks ~10×. */
const LEVEL = 1;
const MAX32 = 0xffffffff;
/** 1980-01-01 00:00 in MS-DOS form: a fixed time, so the same content gives the same bytes. */
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

/** CRC-32 (ISO-HDLC); zlib.crc32 where Node has it (≥ 20.15), else a table. */
const crc32: (data: Uint8Array, value: number) => number =
  typeof nodeCrc32 === "function" ? (data, value) => nodeCrc32(data, value) : tableCrc32;

let TABLE: Uint32Array | undefined;
function tableCrc32(data: Uint8Array, value: number): number {
  if (!TABLE) {
    TABLE = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      TABLE[n] = c >>> 0;
    }
  }
  let c = ~value >>> 0;
  for (let i = 0; i < data.length; i++) c = (TABLE[(c ^ (data[i] as number)) & 0xff] as number) ^ (c >>> 8);
  return ~c >>> 0;
}

interface Entry {
  name: Buffer;
  offset: number;
  crc: number;
  compressed: number;
  size: number;
  streamed: boolean;
}

export class ZipWriter {
  private readonly entries: Entry[] = [];
  private offset = 0;
  private open: Entry | undefined;

  /** A whole entry (small, known content): its local header and deflated data. */
  file(name: string, content: string | Uint8Array): Buffer {
    const data = typeof content === "string" ? Buffer.from(content, "utf8") : content;
    const deflated = deflateRawSync(data, { level: LEVEL });
    const e: Entry = {
      name: Buffer.from(name, "utf8"),
      offset: this.offset,
      crc: crc32(data, 0),
      compressed: deflated.length,
      size: data.length,
      streamed: false,
    };
    return this.emit(Buffer.concat([this.localHeader(e), deflated]), e);
  }

  /** Starts a streamed entry (sizes unknown): its local header, with a data descriptor to follow. */
  entry(name: string): Buffer {
    if (this.open) throw new Error("zip: an entry is still open");
    const e: Entry = { name: Buffer.from(name, "utf8"), offset: this.offset, crc: 0, compressed: 0, size: 0, streamed: true };
    this.open = e;
    return this.emit(this.localHeader(e), e);
  }

  /** A piece of the open entry, deflated on its own: returns the compressed bytes. */
  write(data: Uint8Array): Buffer {
    const e = this.open;
    if (!e) throw new Error("zip: no open entry");
    e.crc = crc32(data, e.crc);
    e.size = this.fits(e.size + data.length);
    const out = deflateRawSync(data, { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH });
    e.compressed += out.length;
    return this.emit(out);
  }

  /** Ends the open entry: the final deflate block and the data descriptor. */
  close(): Buffer {
    const e = this.open;
    if (!e) throw new Error("zip: no open entry");
    this.open = undefined;
    const last = deflateRawSync(Buffer.alloc(0), { level: LEVEL });
    e.compressed += last.length;
    const dd = Buffer.alloc(16);
    dd.writeUInt32LE(0x08074b50, 0);
    dd.writeUInt32LE(e.crc, 4);
    dd.writeUInt32LE(this.fits(e.compressed), 8);
    dd.writeUInt32LE(this.fits(e.size), 12);
    return this.emit(Buffer.concat([last, dd]));
  }

  /** The central directory and its end record: the archive's last bytes. */
  finish(): Buffer {
    if (this.open) throw new Error("zip: an entry is still open");
    const start = this.offset;
    const parts: Buffer[] = [];
    for (const e of this.entries) {
      const h = Buffer.alloc(46);
      h.writeUInt32LE(0x02014b50, 0);
      h.writeUInt16LE(20, 4); // made by: 2.0, MS-DOS attributes
      h.writeUInt16LE(20, 6); // needed: 2.0 (deflate)
      h.writeUInt16LE(this.flags(e), 8);
      h.writeUInt16LE(8, 10);
      h.writeUInt16LE(DOS_TIME, 12);
      h.writeUInt16LE(DOS_DATE, 14);
      h.writeUInt32LE(e.crc, 16);
      h.writeUInt32LE(this.fits(e.compressed), 20);
      h.writeUInt32LE(this.fits(e.size), 24);
      h.writeUInt16LE(e.name.length, 28);
      h.writeUInt32LE(this.fits(e.offset), 42);
      parts.push(h, e.name);
    }
    const dir = Buffer.concat(parts);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.entries.length, 8);
    end.writeUInt16LE(this.entries.length, 10);
    end.writeUInt32LE(this.fits(dir.length), 12);
    end.writeUInt32LE(this.fits(start), 16);
    return this.emit(Buffer.concat([dir, end]));
  }

  private localHeader(e: Entry): Buffer {
    const h = Buffer.alloc(30);
    h.writeUInt32LE(0x04034b50, 0);
    h.writeUInt16LE(20, 4);
    h.writeUInt16LE(this.flags(e), 6);
    h.writeUInt16LE(8, 8); // deflate
    h.writeUInt16LE(DOS_TIME, 10);
    h.writeUInt16LE(DOS_DATE, 12);
    // a streamed entry's crc and sizes follow its data (data descriptor): zero here
    h.writeUInt32LE(e.streamed ? 0 : e.crc, 14);
    h.writeUInt32LE(e.streamed ? 0 : e.compressed, 18);
    h.writeUInt32LE(e.streamed ? 0 : e.size, 22);
    h.writeUInt16LE(e.name.length, 26);
    return Buffer.concat([h, e.name]);
  }

  /** Bit 3: crc and sizes in a data descriptor; bit 11: the name is UTF-8. */
  private flags(e: Entry): number {
    return (e.streamed ? 0x0008 : 0) | 0x0800;
  }

  private fits(n: number): number {
    if (n > MAX32) throw new Error("zip: past 4 GiB (ZIP64 is not written)");
    return n;
  }

  private emit(bytes: Buffer, entry?: Entry): Buffer {
    if (entry) this.entries.push(entry);
    this.offset += bytes.length;
    return bytes;
  }
}
