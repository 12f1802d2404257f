/**
 * A ZIP archive written front to back into an open file, one entry after the other, with bounded
 * memory: what an xlsx workbook is (ECMA-376 Part 2, Open Packaging Conventions). Each entry is
 * DEFLATE (method 8) followed by a data descriptor (general purpose flag bit 3), so neither its size
 * nor its CRC-32 is needed before its bytes; names are UTF-8 (flag bit 11). The layout is PKWARE
 * APPNOTE 6.3.x §4.3: local header, data, descriptor per entry, then the central directory and its
 * end record.
 *
 * An entry's bytes are deflated in chunks, each by `zlib.deflateRaw` on libuv's thread pool with
 * `Z_SYNC_FLUSH`, the last empty one with `Z_FINISH`: each chunk ends on a byte boundary with a
 * non-final block, so the chunks concatenate into one valid DEFLATE stream, and the caller goes on
 * making the next chunk while the previous ones are compressed. Everything to write waits in one
 * queue, in file order; {@link ZipFileWriter.drain} writes what is ready once
 * {@link ZipFileWriter.backpressure} says enough is in flight, and {@link ZipFileWriter.finish}
 * writes the rest.
 *
 * No ZIP64: an entry or archive past 4 GiB is refused with a message that says what to do.
 */
import { writeSync } from 'node:fs';
import { promisify } from 'node:util';
import { constants, crc32, deflateRaw, deflateRawSync } from 'node:zlib';
import { LetterdeskError } from '../../../shared/errors.ts';

/** The DEFLATE level of every entry: zlib's default, the speed and size trade most archivers make. */
export const ZIP_DEFLATE_LEVEL = 6;

/** Chunks being compressed at once before the caller waits ({@link ZipFileWriter.backpressure}). */
const MAX_IN_FLIGHT = 2;
const LIMIT_32 = 0xffffffff;
const VERSION_NEEDED = 20;
const FLAGS = 0x0808;
const deflateRawAsync = promisify(deflateRaw);

interface Entry {
  name: Buffer;
  offset: number;
  crc: number;
  compressed: number;
  size: number;
}

/** Something to write, in file order: bytes being compressed for an entry, or bytes made when their turn comes. */
type Item = { compressing: Promise<Buffer>; entry: Entry } | { make: () => Uint8Array };

/** One entry being written: {@link ZipEntryWriter.write} its bytes, then {@link ZipEntryWriter.end}. */
export interface ZipEntryWriter {
  /** Adds bytes; the buffer is handed to the compressor, so the caller must not change it afterwards. */
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
  readonly #queue: Item[] = [];
  #inFlight = 0;
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

  /** Enough chunks are being compressed: await {@link drain} before adding more. */
  get backpressure(): boolean {
    return this.#inFlight >= MAX_IN_FLIGHT;
  }

  /**
   * Writes queued bytes, in order, until fewer than the most chunks allowed are in flight.
   * @throws the compressor's or the file system's error; LetterdeskError VALIDATION past 4 GiB
   */
  async drain(): Promise<void> {
    while (this.#inFlight >= MAX_IN_FLIGHT) await this.#writeHead();
  }

  /**
   * Starts an entry.
   * @param name its path inside the archive (`xl/worksheets/sheet1.xml`)
   * @throws Error when another entry is still open (a programming error)
   */
  entry(name: string): ZipEntryWriter {
    if (this.#open) throw new Error('zip: the previous entry is still open');
    this.#open = true;
    const entry: Entry = { name: Buffer.from(name, 'utf8'), offset: 0, crc: 0, compressed: 0, size: 0 };
    this.#queue.push({
      make: () => {
        entry.offset = this.#offset;
        const header = Buffer.alloc(30 + entry.name.length);
        header.writeUInt32LE(0x04034b50, 0);
        header.writeUInt16LE(VERSION_NEEDED, 4);
        header.writeUInt16LE(FLAGS, 6);
        header.writeUInt16LE(8, 8);
        header.writeUInt16LE(this.#dosTime, 10);
        header.writeUInt16LE(this.#dosDate, 12);
        // CRC-32 and sizes (14..25) are zero here; the data descriptor carries them.
        header.writeUInt16LE(entry.name.length, 26);
        entry.name.copy(header, 30);
        return header;
      },
    });
    return {
      write: (bytes) => {
        if (bytes.length === 0) return;
        entry.crc = crc32(bytes, entry.crc);
        entry.size += bytes.length;
        if (entry.size > LIMIT_32) throw tooLarge();
        // An output buffer as large as the chunk could ever compress to: the thread pool then
        // deflates the whole chunk in one go, without a round trip to this thread per 16 KiB.
        const chunkSize = bytes.length + (bytes.length >> 10) + 1024;
        const compressing = deflateRawAsync(bytes, { level: ZIP_DEFLATE_LEVEL, finishFlush: constants.Z_SYNC_FLUSH, chunkSize });
        // Awaited in turn by #writeHead; until then a failure must not count as unhandled.
        compressing.catch(() => undefined);
        this.#inFlight++;
        this.#queue.push({ compressing, entry });
      },
      end: () => {
        const last = deflateRawSync(new Uint8Array(0), { level: ZIP_DEFLATE_LEVEL, finishFlush: constants.Z_FINISH });
        this.#queue.push({
          make: () => {
            entry.compressed += last.length;
            const out = Buffer.alloc(last.length + 16);
            last.copy(out);
            out.writeUInt32LE(0x08074b50, last.length);
            out.writeUInt32LE(entry.crc >>> 0, last.length + 4);
            out.writeUInt32LE(entry.compressed, last.length + 8);
            out.writeUInt32LE(entry.size, last.length + 12);
            return out;
          },
        });
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
   * Writes the central directory and its end record after everything queued; the archive is
   * complete when this resolves.
   * @throws the compressor's or the file system's error; LetterdeskError VALIDATION past 4 GiB
   */
  async finish(): Promise<void> {
    if (this.#open) throw new Error('zip: an entry is still open');
    this.#queue.push({ make: () => this.#directory() });
    while (this.#queue.length > 0) await this.#writeHead();
  }

  /** Writes the first queued item (waiting for its compression). */
  async #writeHead(): Promise<void> {
    const item = this.#queue.shift();
    if (!item) return;
    if ('make' in item) {
      this.#put(item.make());
      return;
    }
    let out: Buffer;
    try {
      out = await item.compressing;
    } finally {
      this.#inFlight--;
    }
    item.entry.compressed += out.length;
    this.#put(out);
  }

  /** The central directory and its end record, once every entry is in the file. */
  #directory(): Buffer {
    const start = this.#offset;
    const parts: Buffer[] = [];
    let size = 0;
    for (const e of this.#entries) {
      const h = Buffer.alloc(46 + e.name.length);
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
      e.name.copy(h, 46);
      parts.push(h);
      size += h.length;
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.#entries.length, 8);
    end.writeUInt16LE(this.#entries.length, 10);
    end.writeUInt32LE(size, 12);
    end.writeUInt32LE(start, 16);
    parts.push(end);
    return Buffer.concat(parts);
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
