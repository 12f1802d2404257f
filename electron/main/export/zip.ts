/**
 * A ZIP archive written front to back into an open file, one entry at a time, with constant memory:
 * what an xlsx workbook is (ECMA-376 Part 2, Open Packaging Conventions). Each entry is DEFLATE
 * (method 8) followed by a data descriptor (general purpose flag bit 3), so neither its size nor its
 * CRC-32 is needed before its bytes; names are UTF-8 (flag bit 11). The layout is PKWARE APPNOTE
 * 6.3.x §4.3: local header, data, descriptor per entry, then the central directory and its end
 * record.
 *
 * An entry's text is deflated in chunks with `deflateRawSync` and `Z_SYNC_FLUSH`, the last with
 * `Z_FINISH`: each chunk ends on a byte boundary with a non-final block, so the chunks concatenate
 * into one valid DEFLATE stream. Every call is synchronous, like the CSV writer, which the database
 * worker and the command line run next to better-sqlite3.
 *
 * No ZIP64: an entry or archive past 4 GiB is refused with a message that says what to do.
 */
import { writeSync } from 'node:fs';
import { constants, crc32, deflateRawSync } from 'node:zlib';
import { LetterdeskError } from '../../../shared/errors.ts';

/** The DEFLATE level of every entry: zlib's default, the speed and size trade most archivers make. */
export const ZIP_DEFLATE_LEVEL = 6;

const LIMIT_32 = 0xffffffff;
const VERSION_NEEDED = 20;
const FLAGS = 0x0808;

interface Entry {
  name: Buffer;
  offset: number;
  crc: number;
  compressed: number;
  size: number;
}

/** One entry being written: {@link ZipEntryWriter.write} its bytes, then {@link ZipEntryWriter.end}. */
export interface ZipEntryWriter {
  /** Adds bytes (copied or compressed at once: the caller may reuse the buffer). */
  write(bytes: Uint8Array): void;
  /** Finishes the entry: the rest of its DEFLATE stream and its data descriptor. */
  end(): void;
}

/**
 * Writes a ZIP archive to `fd` (open for writing, at offset 0, not owned). Entries are written one
 * after the other: open the next only after the previous one ended.
 */
export class ZipFileWriter {
  readonly #fd: number;
  readonly #entries: Entry[] = [];
  #offset = 0;
  #open = false;
  /** DOS time and date of every entry (the time the archive was started, local time as ZIP has it). */
  readonly #dosTime: number;
  readonly #dosDate: number;

  /** @param fd a file descriptor open for writing, positioned at the start of an empty file */
  constructor(fd: number, now: Date = new Date()) {
    this.#fd = fd;
    this.#dosTime = (now.getHours() << 11) | (now.getMinutes() << 5) | (now.getSeconds() >> 1);
    this.#dosDate = (Math.max(0, now.getFullYear() - 1980) << 9) | ((now.getMonth() + 1) << 5) | now.getDate();
  }

  /** Bytes written to the file so far. */
  get bytesWritten(): number {
    return this.#offset;
  }

  /**
   * Starts an entry.
   * @param name its path inside the archive (`xl/worksheets/sheet1.xml`)
   * @throws Error when another entry is still open (a programming error)
   */
  entry(name: string): ZipEntryWriter {
    if (this.#open) throw new Error('zip: the previous entry is still open');
    this.#open = true;
    const entry: Entry = { name: Buffer.from(name, 'utf8'), offset: this.#offset, crc: 0, compressed: 0, size: 0 };
    const header = Buffer.alloc(30);
    header.writeUInt32LE(0x04034b50, 0);
    header.writeUInt16LE(VERSION_NEEDED, 4);
    header.writeUInt16LE(FLAGS, 6);
    header.writeUInt16LE(8, 8);
    header.writeUInt16LE(this.#dosTime, 10);
    header.writeUInt16LE(this.#dosDate, 12);
    // CRC-32 and sizes (14..25) are zero here; the data descriptor carries them.
    header.writeUInt16LE(entry.name.length, 26);
    this.#put(header);
    this.#put(entry.name);
    const deflate = (bytes: Uint8Array, flush: number): void => {
      const out = deflateRawSync(bytes, { level: ZIP_DEFLATE_LEVEL, finishFlush: flush });
      entry.compressed += out.length;
      this.#put(out);
    };
    return {
      write: (bytes) => {
        if (bytes.length === 0) return;
        entry.crc = crc32(bytes, entry.crc);
        entry.size += bytes.length;
        if (entry.size > LIMIT_32) throw tooLarge();
        deflate(bytes, constants.Z_SYNC_FLUSH);
      },
      end: () => {
        deflate(new Uint8Array(0), constants.Z_FINISH);
        const descriptor = Buffer.alloc(16);
        descriptor.writeUInt32LE(0x08074b50, 0);
        descriptor.writeUInt32LE(entry.crc >>> 0, 4);
        descriptor.writeUInt32LE(entry.compressed, 8);
        descriptor.writeUInt32LE(entry.size, 12);
        this.#put(descriptor);
        this.#entries.push(entry);
        this.#open = false;
      },
    };
  }

  /** Adds a whole entry at once (the small parts of a package). */
  addEntry(name: string, text: string): void {
    const e = this.entry(name);
    e.write(Buffer.from(text, 'utf8'));
    e.end();
  }

  /**
   * Writes the central directory and its end record; the archive is complete after it.
   * @throws LetterdeskError VALIDATION when the archive passed 4 GiB
   */
  finish(): void {
    if (this.#open) throw new Error('zip: an entry is still open');
    const start = this.#offset;
    for (const e of this.#entries) {
      const h = Buffer.alloc(46);
      h.writeUInt32LE(0x02014b50, 0);
      h.writeUInt16LE(VERSION_NEEDED, 4);
      h.writeUInt16LE(VERSION_NEEDED, 6);
      h.writeUInt16LE(FLAGS, 8);
      h.writeUInt16LE(8, 10);
      h.writeUInt16LE(this.#dosTime, 12);
      h.writeUInt16LE(this.#dosDate, 14);
      h.writeUInt32LE(e.crc >>> 0, 16);
      h.writeUInt32LE(e.compressed, 20);
      h.writeUInt32LE(e.size, 24);
      h.writeUInt16LE(e.name.length, 28);
      h.writeUInt32LE(e.offset, 42);
      this.#put(h);
      this.#put(e.name);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.#entries.length, 8);
    end.writeUInt16LE(this.#entries.length, 10);
    end.writeUInt32LE(this.#offset - start, 12);
    end.writeUInt32LE(start, 16);
    this.#put(end);
  }

  #put(bytes: Uint8Array): void {
    if (this.#offset + bytes.length > LIMIT_32) throw tooLarge();
    let done = 0;
    while (done < bytes.length) done += writeSync(this.#fd, bytes, done, bytes.length - done);
    this.#offset += bytes.length;
  }
}

function tooLarge(): LetterdeskError {
  return new LetterdeskError('VALIDATION', 'The workbook would be larger than 4 GiB, more than an xlsx file can hold; export fewer columns (leave out Raw JSON) or fewer rows, or choose CSV.');
}
