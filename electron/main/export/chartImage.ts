/**
 * Saving what the page drew as a file: a chart of the Overview (the page draws the PNG or SVG,
 * main checks that it is one) or the label sheets' PDF, written where the person chose, atomically
 * (a file it replaces is either the old one or the new one, never half of each).
 */
import { writeSync } from 'node:fs';
import { LetterdeskError } from '../../../shared/errors.ts';
import { createAtomicFile, fileError } from '../base/atomicFile.ts';

/** The file kinds a chart saves as. */
export type ChartImageFormat = 'png' | 'svg';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The bytes of a chart image as the page sent them.
 * @param data PNG: base64 of the file; SVG: the file's text
 * @throws LetterdeskError VALIDATION when the data is not a PNG or an SVG document
 */
export function chartImageBytes(format: ChartImageFormat, data: string): Buffer {
  if (format === 'png') {
    const bytes = Buffer.from(data, 'base64');
    if (bytes.length < PNG_SIGNATURE.length || !bytes.subarray(0, PNG_SIGNATURE.length).equals(PNG_SIGNATURE)) {
      throw new LetterdeskError('VALIDATION', 'The chart could not be drawn as a PNG image. Try Save as SVG instead.');
    }
    return bytes;
  }
  if (!/^(<\?xml[^>]*>\s*)?<svg[\s>]/.test(data)) throw new LetterdeskError('VALIDATION', 'The chart could not be saved as an SVG image.');
  return Buffer.from(data, 'utf8');
}

/**
 * Writes a chart image to `path` (absolute, chosen in the save dialog), replacing a file there.
 * @throws LetterdeskError VALIDATION (see {@link chartImageBytes}), DISK_FULL, or the file system's error in words
 */
export function writeChartImage(path: string, format: ChartImageFormat, data: string): void {
  writeFileBytes(path, chartImageBytes(format, data));
}

/**
 * Writes `bytes` to `path` atomically (a file there is replaced whole or not at all).
 * @throws LetterdeskError DISK_FULL, or the file system's error in words
 */
export function writeFileBytes(path: string, bytes: Uint8Array): void {
  let file: ReturnType<typeof createAtomicFile> | null = null;
  try {
    file = createAtomicFile(path);
    let written = 0;
    while (written < bytes.length) written += writeSync(file.fd, bytes, written);
    file.commit();
    file = null;
  } catch (error) {
    file?.discard();
    throw fileError(error, path);
  }
}

/** Pages of a PDF as Chromium writes it: its page objects (`/Type /Page`, not `/Pages`). */
export function pdfPageCount(pdf: Uint8Array): number {
  return (Buffer.from(pdf).toString('latin1').match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
}
