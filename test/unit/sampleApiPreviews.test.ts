/**
 * The sample API as the image host of its templates: real PNGs, deterministic, a few designs, at
 * the orders' `template.thumbnailUrl`, which point at the sample API's own loopback origin.
 */
import { inflateSync, crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_ACCESS_TOKEN, startSampleApi, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { SAMPLE_PREVIEW_HEIGHT, SAMPLE_PREVIEW_WIDTH, samplePreviewPng } from '../../electron/main/sampleApi/previews.ts';
import { isAllowedPreviewUrl } from '../../electron/main/previews/download.ts';

/** Parses a PNG: checks the signature and every chunk's CRC, returns IHDR fields and the inflated image data. */
function parsePng(bytes: Uint8Array): { width: number; height: number; bitDepth: number; colourType: number; data: Buffer; chunks: string[] } {
  const buf = Buffer.from(bytes);
  expect([...buf.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const chunks: string[] = [];
  const idat: Buffer[] = [];
  let header: Buffer | null = null;
  for (let at = 8; at < buf.length; ) {
    const length = buf.readUInt32BE(at);
    const type = buf.toString('latin1', at + 4, at + 8);
    const data = buf.subarray(at + 8, at + 8 + length);
    expect(buf.readUInt32BE(at + 8 + length), `CRC of ${type}`).toBe(crc32(buf.subarray(at + 4, at + 8 + length)));
    chunks.push(type);
    if (type === 'IHDR') header = data;
    if (type === 'IDAT') idat.push(data);
    at += 12 + length;
  }
  if (header === null) throw new Error('no IHDR');
  return { width: header.readUInt32BE(0), height: header.readUInt32BE(4), bitDepth: header[8] as number, colourType: header[9] as number, data: inflateSync(Buffer.concat(idat)), chunks };
}

describe('sample API template previews', () => {
  let api: SampleApi;
  let thumbnails: string[];
  beforeAll(async () => {
    api = await startSampleApi({ contacts: 50, orders: 400, seed: 3 });
    const res = await fetch(`${api.baseUrl}/orders/?page=0&pageSize=400`, { headers: { authorization: `Bearer ${SAMPLE_ACCESS_TOKEN}` } });
    const body = (await res.json()) as { data: { rows: { template: { thumbnailUrl: string } }[] } };
    thumbnails = [...new Set(body.data.rows.map((o) => o.template.thumbnailUrl))];
  });
  afterAll(() => api.close());

  it("points every order's thumbnailUrl at the sample API's own loopback origin, an address previews of its own profile may be downloaded from", () => {
    const origin = new URL(api.baseUrl).origin;
    expect(thumbnails.length).toBeGreaterThanOrEqual(30);
    for (const url of thumbnails) {
      expect(new URL(url).origin).toBe(origin);
      expect(isAllowedPreviewUrl(url, true)).toBe(true);
    }
  });

  it('serves each as a valid PNG, without tokens, and counts them apart from API requests', async () => {
    const before = api.stats();
    for (const url of thumbnails) {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      const png = parsePng(new Uint8Array(await res.arrayBuffer()));
      expect(png.chunks).toEqual(['IHDR', 'IDAT', 'IEND']);
      expect([png.width, png.height, png.bitDepth, png.colourType]).toEqual([SAMPLE_PREVIEW_WIDTH, SAMPLE_PREVIEW_HEIGHT, 8, 2]);
      expect(png.data.length).toBe((SAMPLE_PREVIEW_WIDTH * 3 + 1) * SAMPLE_PREVIEW_HEIGHT);
      expect(png.data.length).toBeGreaterThan(0);
    }
    const after = api.stats();
    expect(after.previews - before.previews).toBe(thumbnails.length);
    expect(after.requests).toBe(before.requests);
  });

  it('is deterministic across servers and gives the templates distinct images in a few designs', async () => {
    const other = await startSampleApi({ contacts: 5, orders: 400, seed: 3, host: 'localhost' });
    try {
      const url = new URL(thumbnails[0] as string);
      const again = new URL(url.pathname, new URL(other.baseUrl).origin);
      expect(again.hostname).toBe('localhost');
      const a = Buffer.from(await (await fetch(url)).arrayBuffer());
      const b = Buffer.from(await (await fetch(again)).arrayBuffer());
      expect(b.equals(a)).toBe(true);
    } finally {
      await other.close();
    }
    const images = Array.from({ length: 40 }, (_, i) => samplePreviewPng(String(6001 + i)));
    expect(new Set(images.map((png) => png?.toString('base64'))).size).toBe(40);
    // Five designs: the first row of pixels alone already tells them apart.
    const firstRows = images.slice(0, 5).map((png) => parsePng(png as Buffer).data.subarray(0, SAMPLE_PREVIEW_WIDTH * 3 + 1).toString('hex'));
    expect(new Set(firstRows).size).toBe(5);
    for (const png of images) expect((png as Buffer).length).toBeLessThan(16 * 1024);
  });

  it('answers 404 for anything else under /templates, and the API still asks for tokens', async () => {
    const origin = new URL(api.baseUrl).origin;
    for (const path of ['/templates/6000/thumb.png', '/templates/6041/thumb.png', '/templates/6001/thumb.svg', '/templates/abc/thumb.png', '/templates/6001/../6002/thumb.png.x']) {
      expect((await fetch(`${origin}${path}`)).status, path).toBe(404);
    }
    expect((await fetch(`${api.baseUrl}/orders/?page=0&pageSize=1`)).status).toBe(401);
  });
});
