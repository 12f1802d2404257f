/**
 * Template preview images of the sample API: small PNGs generated from the template number, so
 * that previews run end to end on a machine without a network (the sample orders'
 * `template.thumbnailUrl` points here, at the sample API's own loopback origin).
 *
 * Five designs (letter, postcard, invitation, newsletter, coupon), each in the template's own
 * colours; the same template always gives the same bytes. Encoded with Node's zlib (deflate and
 * CRC-32): an 8-bit RGB PNG with one IHDR, one IDAT and an IEND chunk.
 */
import { crc32, deflateSync } from 'node:zlib';

/** Width and height of a preview, pixels (a portrait page). */
export const SAMPLE_PREVIEW_WIDTH = 120;
export const SAMPLE_PREVIEW_HEIGHT = 160;

/** First template id of the sample dataset and how many there are (dataset.ts `generateOrder`). */
const FIRST_TEMPLATE_ID = 6001;
const TEMPLATE_COUNT = 40;

/** The path of a template's preview on the sample API. */
export function samplePreviewPath(templateId: string): string {
  return `/templates/${templateId}/thumb.png`;
}

type Rgb = readonly [number, number, number];

const PALETTE: readonly Rgb[] = [
  [0x2f, 0x6f, 0xeb],
  [0xd9, 0x48, 0x3b],
  [0x1f, 0x9d, 0x74],
  [0xe0, 0x9b, 0x1a],
  [0x8a, 0x4f, 0xd6],
  [0x17, 0x8f, 0xb8],
  [0xc2, 0x3b, 0x86],
  [0x5b, 0x6b, 0x7a],
];
const WHITE: Rgb = [0xff, 0xff, 0xff];
const PAPER: Rgb = [0xfa, 0xf8, 0xf3];
const INK: Rgb = [0x9a, 0xa0, 0xa8];
const DARK: Rgb = [0x3a, 0x3f, 0x47];

const mix = (a: Rgb, b: Rgb, t: number): Rgb => [Math.round(a[0] + (b[0] - a[0]) * t), Math.round(a[1] + (b[1] - a[1]) * t), Math.round(a[2] + (b[2] - a[2]) * t)];

/** A "line of text" at row `y0` spanning `x0 … x1` (3 px high). */
const textLine = (x: number, y: number, y0: number, x0: number, x1: number): boolean => y >= y0 && y < y0 + 3 && x >= x0 && x < x1;

/** The colour of pixel (x, y) of design `design` in `accent`; `n` varies the details. */
function pixel(design: number, accent: Rgb, n: number, x: number, y: number): Rgb {
  const w = SAMPLE_PREVIEW_WIDTH;
  const h = SAMPLE_PREVIEW_HEIGHT;
  switch (design) {
    case 0: {
      // Letter: a header band, a sender block, text lines of varying length, a signature.
      if (y < 22) return accent;
      if (x >= 12 && x < 44 && y >= 30 && y < 42) return mix(accent, WHITE, 0.6);
      for (let i = 0; i < 9; i++) if (textLine(x, y, 54 + i * 9, 12, w - 12 - ((i * 7 + n) % 4) * 12)) return INK;
      if (textLine(x, y, h - 22, 12, 52)) return DARK;
      return PAPER;
    }
    case 1: {
      // Postcard: a sky gradient, a sun, hills, and a stamp.
      const sun = (x - 38) ** 2 + (y - 54) ** 2 < 18 ** 2;
      const hill = y > 104 + 10 * Math.sin((x + n * 9) / 14);
      if (x >= w - 30 && x < w - 10 && y >= 10 && y < 34) return (x + y) % 4 < 2 ? WHITE : accent;
      if (hill) return mix(accent, DARK, 0.35);
      if (sun) return [0xff, 0xd2, 0x4a];
      return mix(mix(accent, WHITE, 0.75), WHITE, y / h);
    }
    case 2: {
      // Invitation: a double frame, a centred title and centred lines.
      const edge = Math.min(x, y, w - 1 - x, h - 1 - y);
      if (edge === 6 || edge === 9) return accent;
      if (textLine(x, y, 40, 30, w - 30) || textLine(x, y, 44, 30, w - 30)) return accent;
      for (let i = 0; i < 5; i++) {
        const half = 36 - ((i * 11 + n) % 3) * 8;
        if (textLine(x, y, 66 + i * 10, w / 2 - half, w / 2 + half)) return INK;
      }
      return WHITE;
    }
    case 3: {
      // Newsletter: a masthead, a picture, two columns of text.
      if (y < 16) return DARK;
      if (y >= 20 && y < 24 && x >= 8 && x < w - 8) return accent;
      if (x >= 8 && x < 56 && y >= 30 && y < 70) return mix(accent, WHITE, ((x + y + n) % 16) / 32);
      const column = x < w / 2 ? [8, 56] : [64, w - 8];
      for (let i = 0; i < 13; i++) {
        const top = (x < w / 2 ? 78 : 30) + i * 7;
        if (top < h - 8 && textLine(x, y, top, column[0] as number, column[1] as number)) return INK;
      }
      return WHITE;
    }
    default: {
      // Coupon: a dashed border, a diagonal band, a big price block.
      const edge = Math.min(x, y, w - 1 - x, h - 1 - y);
      if (edge < 3 && Math.floor((x + y) / 6) % 2 === 0) return accent;
      const d = x - y * 0.75 + 40 - n * 3;
      if (d > 10 && d < 34) return mix(accent, WHITE, 0.25);
      if (x >= 28 && x < w - 28 && y >= 96 && y < 128) return accent;
      if (textLine(x, y, 136, 34, w - 34)) return INK;
      return PAPER;
    }
  }
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * Encodes an 8-bit RGB image as PNG.
 * @param width pixels
 * @param height pixels
 * @param rgb `width * height * 3` bytes, row by row
 */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type RGB, deflate, filter set 0, no interlace
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0; // filter: none
    raw.set(rgb.subarray(y * width * 3, (y + 1) * width * 3), y * (width * 3 + 1) + 1);
  }
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', new Uint8Array(0))]);
}

const cache = new Map<number, Buffer>();

/**
 * The preview PNG of a sample template, or null when `templateId` is not one of the dataset's
 * templates (6001 … 6040). Generated once per template, then kept.
 * @param templateId the template's id as in the orders (`template.id`)
 */
export function samplePreviewPng(templateId: string): Buffer | null {
  if (!/^\d{4}$/.test(templateId)) return null;
  const index = Number(templateId) - FIRST_TEMPLATE_ID;
  if (index < 0 || index >= TEMPLATE_COUNT) return null;
  const hit = cache.get(index);
  if (hit) return hit;
  const accent = PALETTE[index % PALETTE.length] as Rgb;
  const design = index % 5;
  const rgb = new Uint8Array(SAMPLE_PREVIEW_WIDTH * SAMPLE_PREVIEW_HEIGHT * 3);
  for (let y = 0; y < SAMPLE_PREVIEW_HEIGHT; y++) {
    for (let x = 0; x < SAMPLE_PREVIEW_WIDTH; x++) rgb.set(pixel(design, accent, index, x, y), (y * SAMPLE_PREVIEW_WIDTH + x) * 3);
  }
  const png = encodePng(SAMPLE_PREVIEW_WIDTH, SAMPLE_PREVIEW_HEIGHT, rgb);
  cache.set(index, png);
  return png;
}

/**
 * The preview a request path asks for (`/templates/<id>/thumb.png`), or null when the path is not
 * a preview or names no sample template.
 */
export function samplePreviewFor(path: string): Buffer | null {
  const match = /^\/templates\/(\d{4})\/thumb\.png$/.exec(path);
  return match ? samplePreviewPng(match[1] as string) : null;
}
