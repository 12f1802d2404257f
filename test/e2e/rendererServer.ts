/**
 * Serves the built renderer (out/renderer) on 127.0.0.1 the way the app's scheme does: every request
 * is answered by the same `appSchemeResponse` that answers `letterdesk://app/…` in Electron (the page
 * with the production CSP header, its files typed by extension, `preview/<key>` from a preview reader,
 * 404 for everything else), so the Chromium tests run the app's own code.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { APP_HOST, APP_SCHEME, appSchemeResponse } from '../../electron/main/app/appScheme.ts';
import { FORBIDDEN_SENDER_RESULT } from '../../electron/main/ipc/dispatch.ts';
import type { PreviewReader } from '../../electron/main/previews/serve.ts';

const RENDERER_DIR = resolve(import.meta.dirname, '../../out/renderer');

/** Where the page posts its calls when the handlers are served over HTTP ({@link RendererServerOptions.invoke}). */
export const INVOKE_PATH = '/__letterdesk/invoke';

/** Options of {@link serveRenderer}. */
export interface RendererServerOptions {
  /** Answers `preview/<key>` (e.g. the active profile's cache); absent: every preview is 404. */
  readPreview?: PreviewReader;
  /**
   * Answers a call of the page's own frame posted to {@link INVOKE_PATH} as JSON `{ name, input }`
   * with the JSON of its Result (harness.ts `bindHandlers` with the 'http' transport); absent: 404.
   */
  invoke?: (name: unknown, input: unknown) => Promise<unknown>;
}

/** Answers a POST to {@link INVOKE_PATH}: only from the page's own origin (the preload's sender check). */
function answerInvoke(req: IncomingMessage, res: ServerResponse, invoke: NonNullable<RendererServerOptions['invoke']>): void {
  const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  if (req.method !== 'POST' || req.headers['sec-fetch-site'] !== 'same-origin') {
    json(403, FORBIDDEN_SENDER_RESULT);
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let call: { name?: unknown; input?: unknown };
    try {
      call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof call;
    } catch {
      json(400, { ok: false, error: { code: 'VALIDATION', message: 'The call was not JSON.' } });
      return;
    }
    invoke(call.name, call.input).then(
      (result) => json(200, result),
      () => res.writeHead(500).end(),
    );
  });
}

/** Serves out/renderer on 127.0.0.1 through the app scheme's answers. */
export async function serveRenderer(options: RendererServerOptions = {}): Promise<{ url: string; origin: string; close: () => Promise<void> }> {
  const sources = { rendererDir: RENDERER_DIR, ...(options.readPreview ? { readPreview: options.readPreview } : {}) };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    if (path === INVOKE_PATH && options.invoke) {
      answerInvoke(req, res, options.invoke);
      return;
    }
    const answer = path.startsWith('/') ? appSchemeResponse(`${APP_SCHEME}://${APP_HOST}${path}`, sources, req.method) : Promise.resolve(null);
    answer.then(
      (response) => {
        if (response === null) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(response.status, response.headers);
        res.end(response.body === null ? undefined : Buffer.from(response.body));
      },
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  const origin = `http://127.0.0.1:${address.port}`;
  return {
    url: `${origin}/index.html`,
    origin,
    close: () =>
      new Promise((ok) => {
        server.close(() => ok());
        server.closeAllConnections();
      }),
  };
}
