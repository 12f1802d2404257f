/**
 * Serves the built renderer (out/renderer) on 127.0.0.1 with the production CSP header, as the
 * Chromium end-to-end tests load it.
 */
import { readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, normalize, resolve } from 'node:path';
import { CONTENT_SECURITY_POLICY } from '../../electron/main/app/security.ts';

const RENDERER_DIR = resolve(import.meta.dirname, '../../out/renderer');

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
};

/** Serves out/renderer on 127.0.0.1 with the production CSP header. */
export async function serveRenderer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^([/\\])+/, '');
    const file = resolve(RENDERER_DIR, path === '' ? 'index.html' : path);
    if (!file.startsWith(RENDERER_DIR)) {
      res.writeHead(403).end();
      return;
    }
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
      res.writeHead(200, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream', 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'Cache-Control': 'no-store' });
      res.end(readFileSync(file));
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}/index.html`,
    close: () => new Promise((ok) => server.close(() => ok())),
  };
}

