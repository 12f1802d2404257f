/**
 * A ZIP archive written front to back into an open file, one entry after the other, with bounded
 * memory: what an xlsx workbook is (ECMA-376 Part 2, Open Packaging Conventions). Each entry is
 * DEFLATE (method 8) followed by a data descriptor (general purpose flag bit 3), so neither its size
 * nor its CRC-32 is needed before its bytes; names are UTF-8 (flag bit 11). The layout is PKWARE
 * APPNOTE 6.3.x §4.3: local header, data, descriptor per entry, then the central directory and its
 * end record.
 *
 * A large entry ({@link ZipFileWriter.entry}) is one `node:zlib` deflate stream, which compresses on
 * libuv's thread pool while the caller makes the next chunk; its output is written to the file as
 * it comes. The caller awaits {@link ZipEntryWriter.drain} when {@link ZipEntryWriter.backpressure}
 * says two chunks are waiting, and {@link ZipEntryWriter.end} before the next entry. Small entries
 * ({@link ZipFileWriter.addEntry}) are deflated at once.
 *
 * No ZIP64: an entry or archive past 4 GiB is refused with a message that says what to do.
 */
import { writeSync } from 'node:fs';
import { constants, crc32, createDeflateRaw, deflateRawSync, type DeflateRaw } from 'node:zlib';
import { LetterdeskError } from '../../../shared/errors.ts';

/** The DEFLATE level of every entry: zlib's default, the speed and size trade most archivers make. */
export const ZIP_DEFLATE_LEVEL = 6;

/** Chunks handed to a stream's compressor and not yet compressed before the caller waits. */
const MAX_IN_FLIGHT = 2;
/** Size of the compressor's output buffers. */
const OUTPUT_CHUNK = 1 << 16;
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

/** One large entry being written. */
export interface ZipEntryWriter {
  /**
   * Adds bytes. The compressor reads them later: the caller must not change the buffer until
   * `done` is called (then it may reuse it).
   */
  write(bytes: Uint8Array, done?: () => void): void;
  /** Enough is waiting to be compressed: await {@link drain} before writing more. */
  readonly backpressure: boolean;
  /** Resolves once fewer chunks wait. @throws the compressor's or the file system's error */
  drain(): Promise<void>;
  /** Finishes the entry (the rest of its DEFLATE stream and its data descriptor). @throws as {@link drain} */
  end(): Promise<void>;
}

/**
 * Writes a ZIP archive to `fd` (open for writing, at offset 0, not owned). Entries are written one
 * after the other: start the next only after the previous one ended. After a failure, call
 * {@link abort} before the descriptor is closed.
 */
export class ZipFileWriter {
  readonly #fd: number;
  readonly #entries: Entry[] = [];
  #offset = 0;
  #open = false;
  #stream: DeflateRaw | null = null;
  #aborted = false;
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
   * Starts a large entry, compressed as a stream.
   * @param name its path inside the archive (`xl/worksheets/sheet1.xml`)
   * @throws Error when another entry is still open (a programming error)
   */
  entry(name: string): ZipEntryWriter {
    const entry = this.#begin(name);
    const stream = createDeflateRaw({ level: ZIP_DEFLATE_LEVEL, chunkSize: OUTPUT_CHUNK });
    this.#stream = stream;
    let failure: unknown = null;
    let inFlight = 0;
    let wake: (() => void) | null = null;
    const signal = (): void => {
      const w = wake;
      wake = null;
      w?.();
    };
    stream.on('data', (out: Buffer) => {
      if (this.#aborted || failure) return;
      try {
        entry.compressed += out.length;
        this.#put(out);
      } catch (error) {
        failure = error;
        stream.destroy();
        signal();
      }
    });
    stream.on('error', (error) => {
      failure ??= error;
      signal();
    });
    const ended = new Promise<void>((resolve) => stream.on('end', resolve));
    const check = (): void => {
      if (failure) throw failure;
    };
    return {
      write: (bytes, done) => {
        check();
        if (bytes.length === 0) return done?.();
        entry.crc = crc32(bytes, entry.crc);
        entry.size += bytes.length;
        if (entry.size > LIMIT_32) throw tooLarge();
        inFlight++;
        stream.write(bytes, () => {
          inFlight--;
          done?.();
          signal();
        });
      },
      get backpressure() {
        return inFlight >= MAX_IN_FLIGHT || failure !== null;
      },
      drain: async () => {
        while (inFlight >= MAX_IN_FLIGHT && !failure) await new Promise<void>((resolve) => (wake = resolve));
        check();
      },
      end: async () => {
        check();
        stream.end();
        await Promise.race([ended, new Promise<void>((resolve) => stream.once('close', resolve))]);
        check();
        this.#stream = null;
        this.#finishEntry(entry);
      },
    };
  }

  /** Adds a whole small entry at once (the small parts of a package). */
  addEntry(name: string, text: string): void {
    const entry = this.#begin(name);
    const bytes = Buffer.from(text, 'utf8');
    entry.crc = crc32(bytes);
    entry.size = bytes.length;
    const out = deflateRawSync(bytes, { level: ZIP_DEFLATE_LEVEL, finishFlush: constants.Z_FINISH });
    entry.compressed = out.length;
    this.#put(out);
    this.#finishEntry(entry);
  }

  /** Writes the central directory and its end record; the archive is complete after it. */
  finish(): void {
    if (this.#open) throw new Error('zip: an entry is still open');
    const start = this.#offset;
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
      this.#put(h);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.#entries.length, 8);
    end.writeUInt16LE(this.#entries.length, 10);
    end.writeUInt32LE(this.#offset - start, 12);
    end.writeUInt32LE(start, 16);
    this.#put(end);
  }

  /** Stops a running entry's compressor: nothing more is written to the file. Never throws. */
  abort(): void {
    this.#aborted = true;
    this.#stream?.destroy();
    this.#stream = null;
  }

  #begin(name: string): Entry {
    if (this.#open) throw new Error('zip: the previous entry is still open');
    this.#open = true;
    const entry: Entry = { name: Buffer.from(name, 'utf8'), offset: this.#offset, crc: 0, compressed: 0, size: 0 };
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
    this.#put(header);
    return entry;
  }

  #finishEntry(entry: Entry): void {
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(entry.crc >>> 0, 4);
    descriptor.writeUInt32LE(entry.compressed, 8);
    descriptor.writeUInt32LE(entry.size, 12);
    this.#put(descriptor);
    this.#entries.push(entry);
    this.#open = false;
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
