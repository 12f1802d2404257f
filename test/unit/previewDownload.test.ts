/**
 * Preview downloads (electron/main/previews/download.ts) against real loopback image hosts: what
 * is accepted, what is refused and why, and that nothing but the image request leaves the app.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadPreview, downloadPreviews, isAllowedPreviewUrl, type DownloadOptions, type PreviewSink } from '../../electron/main/previews/download.ts';
import type { PreviewImage } from '../../electron/main/previews/serve.ts';
import { GIF, JPEG, PNG, startImageHost, SVG, WEBP, type ImageHost } from './fixtures/imageHost.ts';

/** The options of a profile on this computer, as the sample API's is: loopback previews allowed. */
const LOCAL = { profileBaseUrl: 'http://127.0.0.1:4100/api/v1' } as const;

let host: ImageHost;
let other: ImageHost;
beforeAll(async () => {
  host = await startImageHost();
  other = await startImageHost();
  host.route('/ok.png', { headers: { 'content-type': 'image/png' }, body: PNG });
  host.route('/photo.jpg', { headers: { 'content-type': 'image/jpeg' }, body: JPEG });
  host.route('/anim.gif', { headers: { 'content-type': 'image/gif' }, body: GIF });
  host.route('/pic.webp', { headers: { 'content-type': 'image/webp' }, body: WEBP });
  host.route('/mislabelled', { headers: { 'content-type': 'text/plain' }, body: PNG });
  host.route('/image.svg', { headers: { 'content-type': 'image/svg+xml' }, body: SVG });
  host.route('/svg-as.png', { headers: { 'content-type': 'image/png' }, body: SVG });
  host.route('/page.html', { headers: { 'content-type': 'image/png' }, body: '<!doctype html><img src=x onerror=alert(1)>' });
  host.route('/empty.png', { headers: { 'content-type': 'image/png' }, body: '' });
  host.route('/big.png', { headers: { 'content-type': 'image/png' }, body: Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]) });
  host.route('/exactly-2mib.png', { headers: { 'content-type': 'image/png' }, body: Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024 - PNG.length)]) });
  host.route('/big-streamed.png', (_req, res) => {
    // No Content-Length: the cap applies while reading.
    res.writeHead(200, { 'content-type': 'image/png' });
    res.write(PNG);
    const chunk = Buffer.alloc(256 * 1024);
    let sent = 0;
    const more = () => {
      while (sent < 12 && res.write(chunk)) sent++;
      if (sent < 12) res.once('drain', more);
      else res.end();
    };
    more();
  });
  host.route('/lying-length.png', (_req, res) => {
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': '100' });
    res.end(Buffer.concat([PNG, Buffer.alloc(100 - PNG.length)]));
  });
  host.route('/moved.png', { status: 302, headers: { location: '/ok.png' } });
  host.route('/away.png', { status: 301, headers: { location: `${other.origin}/steal.png` } });
  host.route('/slow.png', { delayMs: 3000, headers: { 'content-type': 'image/png' }, body: PNG });
  host.route('/error.png', { status: 500, body: 'boom' });
  host.route('/cookie.png', { headers: { 'content-type': 'image/png', 'set-cookie': 'tracker=1; Path=/' }, body: PNG });
  other.route('/steal.png', { headers: { 'content-type': 'image/png' }, body: PNG });
});
afterAll(async () => {
  await host.close();
  await other.close();
});

const reason = async (url: string, options: Partial<DownloadOptions> = {}) => {
  try {
    await downloadPreview(url, { ...LOCAL, ...options });
  } catch (error) {
    return (error as Error).message;
  }
  return 'downloaded';
};

describe('preview addresses', () => {
  // [address, allowed for a profile on this computer, allowed for a profile elsewhere]
  it.each([
    ['https://images.example.com/t/1.png', true, true],
    ['https://images.example.com:8443/t/1.png?v=2', true, true],
    ['https://93.184.216.34/t.png', true, true],
    ['http://127.0.0.1:4100/t.png', true, false],
    ['http://127.8.9.10/t.png', true, false],
    ['http://localhost:4100/t.png', true, false],
    ['http://[::1]:4100/t.png', true, false],
    ['https://127.0.0.1:4100/t.png', true, false],
    ['https://[::1]/t.png', true, false],
    ['https://[::ffff:127.0.0.1]/t.png', true, false],
    ['https://0.0.0.0/t.png', false, false],
    ['https://10.0.0.1/t.png', false, false],
    ['https://172.16.5.4/t.png', false, false],
    ['https://192.168.1.1/t.png', false, false],
    ['https://100.64.0.1/t.png', false, false],
    ['https://169.254.169.254/latest/meta-data', false, false],
    ['https://[fd00::1]/t.png', false, false],
    ['https://[fe80::1]/t.png', false, false],
    ['https://[::ffff:10.0.0.1]/t.png', false, false],
    ['https://[::ffff:169.254.169.254]/t.png', false, false],
    ['http://images.example.com/t/1.png', false, false],
    ['http://localhost./t.png', false, false],
    ['http://localhost.example.com/t.png', false, false],
    ['http://127.0.0.1.nip.io/t.png', false, false],
    ['http://10.0.0.1/t.png', false, false],
    ['http://[::2]/t.png', false, false],
    ['https://user:pw@images.example.com/t.png', false, false],
    ['ftp://images.example.com/t.png', false, false],
    ['file:///etc/passwd', false, false],
    ['data:image/png;base64,iVBORw0KGgo=', false, false],
    ['javascript:alert(1)', false, false],
    ['/relative/t.png', false, false],
    ['', false, false],
  ])('%s → local profile %s, remote profile %s', (url, local, remote) => {
    expect(isAllowedPreviewUrl(url, true)).toBe(local);
    expect(isAllowedPreviewUrl(url, false)).toBe(remote);
  });
  it('refuses http to a host other than this computer without sending anything', async () => {
    const before = host.requests.length;
    expect(await reason('http://images.example.com/ok.png')).toMatch(/must be an https address/);
    expect(await reason(`${host.origin.replace('127.0.0.1', 'localhost.')}/ok.png`)).toMatch(/must be an https address/);
    expect(host.requests.length).toBe(before);
  });
});

describe('downloading one preview', () => {
  it('accepts PNG, JPEG, GIF and WebP by their bytes, whatever the Content-Type says', async () => {
    const expectations: [string, string][] = [['/ok.png', 'image/png'], ['/photo.jpg', 'image/jpeg'], ['/anim.gif', 'image/gif'], ['/pic.webp', 'image/webp'], ['/mislabelled', 'image/png']];
    for (const [path, type] of expectations) {
      const image = await downloadPreview(`${host.origin}${path}`, LOCAL);
      expect(image.type, path).toBe(type);
    }
    expect(Buffer.from((await downloadPreview(`${host.origin}/ok.png`, LOCAL)).bytes).equals(PNG)).toBe(true);
  });
  it('works over IPv6 loopback and localhost', async () => {
    const v6 = await startImageHost('::1');
    try {
      v6.route('/ok.png', { body: PNG });
      expect((await downloadPreview(`${v6.origin}/ok.png`, LOCAL)).type).toBe('image/png');
    } finally {
      await v6.close();
    }
    expect((await downloadPreview(`${host.origin.replace('127.0.0.1', 'localhost')}/ok.png`, LOCAL)).type).toBe('image/png');
  });
  it('refuses SVG, HTML, empty and other non-image bytes, even labelled image/png', async () => {
    for (const path of ['/image.svg', '/svg-as.png', '/page.html', '/empty.png']) {
      expect(await reason(`${host.origin}${path}`), path).toBe('The answer is not a PNG, JPEG, WebP or GIF image.');
    }
  });
  it('refuses an image over 2 MiB, declared or streamed, and accepts exactly 2 MiB', async () => {
    expect(await reason(`${host.origin}/big.png`)).toMatch(/larger than 2 MiB/);
    expect(await reason(`${host.origin}/big-streamed.png`)).toMatch(/larger than 2 MiB/);
    expect(await reason(`${host.origin}/exactly-2mib.png`)).toBe('downloaded');
    expect(await reason(`${host.origin}/ok.png`, { maxBytes: 10 })).toMatch(/larger than/);
    expect(await reason(`${host.origin}/lying-length.png`, { maxBytes: 50 })).toMatch(/larger than/);
  });
  it('follows no redirect, on the same host or to another, and says where it pointed', async () => {
    const okBefore = host.hits('/ok.png');
    expect(await reason(`${host.origin}/moved.png`)).toBe('The image host answered 302 and pointed to /ok.png; redirects are not followed.');
    expect(host.hits('/ok.png')).toBe(okBefore);
    expect(await reason(`${host.origin}/away.png`)).toBe(`The image host answered 301 and pointed to ${other.origin}/steal.png; redirects are not followed.`);
    expect(other.hits('/steal.png')).toBe(0);
  });
  it('gives up after the timeout, and names error statuses and unreachable hosts', async () => {
    const started = Date.now();
    expect(await reason(`${host.origin}/slow.png`, { timeoutMs: 300 })).toBe('The image host did not answer within 0.3 s.');
    expect(Date.now() - started).toBeLessThan(2500);
    expect(await reason(`${host.origin}/error.png`)).toBe('The image host answered 500.');
    expect(await reason(`${host.origin}/missing.png`)).toBe('The image host answered 404.');
    const closed = await startImageHost();
    const gone = closed.origin;
    await closed.close();
    expect(await reason(`${gone}/ok.png`)).toMatch(/could not be downloaded: ECONNREFUSED/);
  });
  it('sends no cookies, tokens or referrer, and keeps no cookie it is given', async () => {
    await downloadPreview(`${host.origin}/cookie.png`, LOCAL);
    await downloadPreview(`${host.origin}/ok.png`, LOCAL);
    const seen = host.requests.filter((r) => r.path === '/cookie.png' || r.path === '/ok.png').slice(-2);
    for (const { headers } of seen) {
      expect(headers.cookie).toBeUndefined();
      expect(headers.authorization).toBeUndefined();
      expect(headers.refreshtoken).toBeUndefined();
      expect(headers.referer).toBeUndefined();
      expect(headers.accept).toBe('image/png, image/jpeg, image/webp, image/gif');
    }
  });
});

describe('downloading many', () => {
  const collect = () => {
    const stored = new Map<string, PreviewImage>();
    const failed = new Map<string, string>();
    const sink: PreviewSink = { stored: (u, i) => void stored.set(u, i), failed: (u, r) => void failed.set(u, r) };
    return { stored, failed, sink };
  };

  it('reports each address once, keeps at most `concurrency` requests in flight, and never rejects for a failed download', async () => {
    const lanes = await startImageHost();
    try {
      const urls: string[] = [];
      for (let i = 0; i < 12; i++) {
        lanes.route(`/t${i}.png`, { delayMs: 60, body: i % 4 === 3 ? SVG : PNG });
        urls.push(`${lanes.origin}/t${i}.png`);
      }
      const { stored, failed, sink } = collect();
      const summary = await downloadPreviews([...urls, ...urls, 'http://images.example.com/x.png'], sink, { ...LOCAL, concurrency: 3 });
      expect(summary).toEqual({ stored: 9, failed: 4, cancelled: false });
      expect(stored.size).toBe(9);
      expect([...failed.keys()].sort()).toEqual([urls[3], urls[7], urls[11], 'http://images.example.com/x.png'].sort());
      expect(lanes.requests.length).toBe(12);
      expect(lanes.maxInFlight()).toBeLessThanOrEqual(3);
      expect(lanes.maxInFlight()).toBeGreaterThan(1);
    } finally {
      await lanes.close();
    }
  });

  it('stops when cancelled: downloads not finished are reported to nobody', async () => {
    const slow = await startImageHost();
    try {
      const urls = Array.from({ length: 6 }, (_, i) => {
        slow.route(`/s${i}.png`, { delayMs: 400, body: PNG });
        return `${slow.origin}/s${i}.png`;
      });
      const { stored, failed, sink } = collect();
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 150);
      const summary = await downloadPreviews(urls, sink, { ...LOCAL, concurrency: 2, signal: abort.signal });
      expect(summary).toEqual({ stored: 0, failed: 0, cancelled: true });
      expect(stored.size + failed.size).toBe(0);
      expect(slow.requests.length).toBe(2);
    } finally {
      await slow.close();
    }
  });

  it("stops starting downloads when the sink fails, and rejects with the sink's error", async () => {
    const sink: PreviewSink = {
      stored: () => {
        throw new Error('disk full');
      },
      failed: () => {},
    };
    const before = host.hits('/ok.png');
    await expect(downloadPreviews([`${host.origin}/ok.png`, `${host.origin}/ok.png?2`, `${host.origin}/ok.png?3`], sink, { ...LOCAL, concurrency: 1 })).rejects.toThrow('disk full');
    expect(host.hits('/ok.png') - before).toBe(1);
  });
});
