/**
 * The loopback sample API: `GET {base_url}/contacts` (§4.1) and `GET {base_url}/orders/` (§4.2) under
 * `http://127.0.0.1:<port>/api/v1`, in the §2.1 envelope, over the deterministic dataset of
 * `dataset.ts`, with the switchable faults of `faults.ts`. It is also the image host of the sample
 * templates: `GET /templates/<id>/thumb.png` (previews.ts), the orders' `template.thumbnailUrl`,
 * without tokens or faults; and it has a control route outside the API, `POST /sample/advance?days=N`
 * (control.ts), which moves the data's clock on (the handle's `advanceClock` does the same).
 *
 * Behaviour where the spec is silent (documented in docs/service-api-notes.md):
 *  - rows are served newest first; `/contacts/` and `/orders` (trailing slash or not) both work;
 *  - errors are JSON `{ "message": <text>, "error": <CODE> }` (400 BAD_REQUEST with `parameter`,
 *    401 UNAUTHORIZED, 404 NOT_FOUND, 405 METHOD_NOT_ALLOWED, 500/502/503 from faults, 429
 *    RATE_LIMITED with `Retry-After`);
 *  - `pageSize` above `maxPageSize` is served as `maxPageSize` rows (silently, like a capped server);
 *  - filters see each row's hidden state (hidden.ts: address and last-mailed status, payment status,
 *    source, …), which the rows never carry, as the real service's records do not;
 *  - a filtered query scans the dataset once and keeps the matching ids (4 bytes each) in a small
 *    cache of the last 4 queries, so paging through a filtered result does not rescan (matches.ts).
 *
 * Run directly (Node 24, type stripping): `node electron/main/sampleApi/server.ts --contacts 100000
 * --orders 20000 [--seed 1] [--port 0] [--max-page-size 1000] [--latency-ms 0] [--prerender-page-size N]
 * [--prerender-orders-page-size N]`.
 */
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { LetterdeskError } from '../../../shared/errors.ts';
import { parseSampleApiArgs } from './args.ts';
import { createSampleDataset, type SampleClockAdvance, type SampleContact, type SampleDataset, type SampleOrder } from './dataset.ts';
import { answerControl, isControlPath } from './control.ts';
import { corruptRow, FaultState, PROXY_ERROR_PAGE, type FaultOptions } from './faults.ts';
import { propertyAddressesOf } from './generate.ts';
import { MatchCache } from './matches.ts';
import { pageBody, prerender, type Endpoint } from './prerender.ts';
import { samplePreviewFor } from './previews.ts';
import {
  contactMatches,
  filterKey,
  hasContactFilter,
  hasOrderFilter,
  orderMatches,
  parseContactQuery,
  parseOrderQuery,
  QueryError,
} from './query.ts';
import { bearerOf, sendError } from './reply.ts';

export { parseSampleApiArgs } from './args.ts';
export type { FaultOptions } from './faults.ts';
export type { SampleClockAdvance, SampleDataset } from './dataset.ts';
export { SAMPLE_ADVANCE_PATH } from './control.ts';

/** Bearer token the sample API accepts by default (JWT-shaped, not a secret: sample data only). */
export const SAMPLE_ACCESS_TOKEN =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJzYW1wbGUtdXNlciIsIm9yZ0lkIjoiNDIwNyIsInNhbXBsZSI6dHJ1ZX0.c2FtcGxlLWFwaS1zaWduYXR1cmUtbGV0dGVyZGVzaw';
/** `refreshtoken` header value the sample API accepts by default on `/contacts`. */
export const SAMPLE_REFRESH_TOKEN = 'sample-refresh-6b1f0c9e2d4a4e7f9a3c5d8b0e1f2a3b';

/** The path every endpoint lives under (§9: the base address ends in `api/v1`). */
export const SAMPLE_API_BASE_PATH = '/api/v1';

/** Options of {@link startSampleApi}. */
export interface SampleApiOptions {
  /** Loopback address to listen on: 127.0.0.1, ::1 or localhost; anything else is refused. @default '127.0.0.1' */
  host?: string;
  /** TCP port; 0 picks a free one. @default 0 */
  port?: number;
  /** Number of contacts (0 … 10,000,000). */
  contacts: number;
  /** Number of orders (0 … 10,000,000). */
  orders: number;
  /** Dataset seed. @default 1 */
  seed?: number;
  /**
   * The dataset's clock (dataset.ts `SampleDatasetOptions.clock`): the data's times end at the start
   * of its UTC day. A Date, so that the options cross to the worker thread. @default the time of start
   */
  clock?: Date;
  /** Bearer token to accept. @default SAMPLE_ACCESS_TOKEN */
  accessToken?: string;
  /** `refreshtoken` header to accept on /contacts. @default SAMPLE_REFRESH_TOKEN */
  refreshToken?: string;
  /** Rows per page the server returns at most, whatever `pageSize` asks. @default 1000 */
  maxPageSize?: number;
  /** Initial faults (see faults.ts). @default none */
  faults?: FaultOptions;
  /**
   * Serialise every page of both unfiltered listings at this page size once, at start, and answer
   * exactly those requests (no filter, this `pageSize`) from memory. For the benchmark: generating
   * and serialising rows takes the sample server's CPU from the same cores as the client it
   * measures, where a remote service costs the client's machine nothing but I/O. Memory: the JSON
   * of both listings. Not used after an edit of the dataset, or when faults corrupt rows. @default none
   */
  prerenderPageSize?: number;
  /**
   * The page size of the prerendered orders, when it differs from `prerenderPageSize` (a sync keeps
   * its pages within a character budget, sync/engine.ts `pageSizeWithin`, and an order is several
   * times a contact). Page 0 of the orders at `prerenderPageSize` is prerendered too: a sync asks it first,
   * at the profile's page size, and divides from there. @default prerenderPageSize
   */
  prerenderOrdersPageSize?: number;
}

/** A running sample API. */
export interface SampleApi {
  /** `http://127.0.0.1:<port>/api/v1` (no trailing slash). */
  baseUrl: string;
  /** Replaces the fault switches (and restarts the fault generator). */
  setFaults(faults: FaultOptions): void;
  /** The data being served; edits show up in the next answers. */
  dataset: SampleDataset;
  /**
   * Moves the served data's clock forward by `days` whole days (dataset.ts `advanceClock`, which
   * says what moves); the next answers serve the moved data, from no page prerendered or filter
   * result cached before. `POST {origin}/sample/advance?days=N` does the same over HTTP.
   * @returns the sample API's record of the fields that changed
   * @throws RangeError when `days` is not a whole number from 1 to 365
   */
  advanceClock(days: number): SampleClockAdvance;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
  /**
   * API requests seen (every request but the preview images and the control route, including
   * faulted ones), faults injected, and preview images served.
   */
  stats(): { requests: number; faults: number; byEndpoint: { contacts: number; orders: number }; previews: number };
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);


const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));


/**
 * Starts the sample API on loopback. Starts at once at any scale (rows are generated per request),
 * unless `prerenderPageSize` asks for every page up front (time in proportion to the rows).
 * @throws LetterdeskError VALIDATION for a non-loopback host or bad counts; the listen error
 *   (e.g. EADDRINUSE) otherwise
 */
export async function startSampleApi(options: SampleApiOptions): Promise<SampleApi> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host)) {
    throw new LetterdeskError('VALIDATION', `The sample API only listens on loopback (127.0.0.1, ::1 or localhost), not "${host}". Leave the host out or use 127.0.0.1.`);
  }
  const maxPageSize = options.maxPageSize ?? 1000;
  if (!Number.isInteger(maxPageSize) || maxPageSize < 1) throw new LetterdeskError('VALIDATION', `maxPageSize must be a whole number ≥ 1 (got ${maxPageSize}).`);
  // Listening comes first: the orders' thumbnail addresses point at this server's own origin.
  let ready = false;
  const server = http.createServer({ keepAliveTimeout: 5000 }, (req, res) => {
    if (!ready) return sendError(res, 503, 'STARTING', 'The sample API is starting; retry in a moment.');
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, 'INTERNAL', `The sample API failed: ${(error as Error).message}`);
      else res.destroy();
    });
  });
  const close = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const origin = `http://${host === '::1' ? '[::1]' : host}:${port}`;

  let dataset: SampleDataset;
  let prerendered: ReturnType<typeof prerender>;
  try {
    try {
      dataset = createSampleDataset({ contacts: options.contacts, orders: options.orders, seed: options.seed ?? 1, previewOrigin: origin, clock: options.clock });
    } catch (error) {
      throw new LetterdeskError('VALIDATION', `${(error as Error).message}.`);
    }
    prerendered = prerender(dataset, { prerenderPageSize: options.prerenderPageSize, prerenderOrdersPageSize: options.prerenderOrdersPageSize }, maxPageSize);
  } catch (error) {
    await close();
    throw error;
  }
  const accessToken = options.accessToken ?? SAMPLE_ACCESS_TOKEN;
  const refreshToken = options.refreshToken ?? SAMPLE_REFRESH_TOKEN;
  const faults = new FaultState(options.faults);
  let requests = 0;
  let faultCount = 0;
  const byEndpoint = { contacts: 0, orders: 0 };
  let previews = 0;
  const matches = new MatchCache(dataset);
  const advanceClock = (days: number): SampleClockAdvance => {
    const record = dataset.advanceClock(days);
    // The version the advance bumped already keeps both from answering; this frees their memory.
    prerendered = undefined;
    matches.clear();
    return record;
  };

  /** Splits `meta.account_id` off the other filters; `rest` is null when no other filter is left. */
  const splitAccount = <Q extends { meta: [string, string][] }>(q: Q, hasFilter: (q: Q) => boolean): { accountId: string | null; rest: Q | null } => {
    const account = q.meta.filter(([k]) => k === 'account_id');
    const accountId = account.length === 1 ? (account[0] as [string, string])[1] : null;
    const rest = accountId === null ? q : { ...q, meta: q.meta.filter(([k]) => k !== 'account_id') };
    return { accountId, rest: hasFilter(rest) ? rest : null };
  };

  const pageOf = (endpoint: Endpoint, sp: URLSearchParams): { count: number; rows: Record<string, unknown>[] } => {
    if (endpoint === 'contacts') {
      const q = parseContactQuery(sp, maxPageSize);
      const offset = q.page * q.pageSize;
      let count: number;
      let rows: SampleContact[];
      if (!hasContactFilter(q)) {
        count = dataset.contactCount;
        rows = offset < count ? dataset.contactsFrom(offset, q.pageSize) : [];
      } else {
        const { accountId, rest } = splitAccount(q, hasContactFilter);
        const test = (id: string) => contactMatches(rest!, dataset.contactHidden(id)!, () => dataset.contactById(id)!);
        const ids = matches.ids('contacts', filterKey(q), accountId, rest && test);
        count = ids.length;
        rows = [];
        for (const id of ids.subarray(Math.min(offset, ids.length), Math.min(offset + q.pageSize, ids.length))) {
          const row = dataset.contactById(String(id));
          if (row) rows.push(row);
        }
      }
      if (q.withPropertyAddresses) for (const row of rows) (row as Record<string, unknown>).propertyAddresses = propertyAddressesOf(row.id);
      return { count, rows };
    }
    const q = parseOrderQuery(sp, maxPageSize);
    const offset = q.page * q.pageSize;
    if (!hasOrderFilter(q)) {
      const count = dataset.orderCount;
      return { count, rows: offset < count ? dataset.ordersFrom(offset, q.pageSize) : [] };
    }
    const { accountId, rest } = splitAccount(q, hasOrderFilter);
    const test = (id: string) => orderMatches(rest!, dataset.orderHidden(id)!, () => dataset.orderById(id)!);
    const ids = matches.ids('orders', filterKey(q), accountId, rest && test);
    const rows: SampleOrder[] = [];
    for (const id of ids.subarray(Math.min(offset, ids.length), Math.min(offset + q.pageSize, ids.length))) {
      const row = dataset.orderById(String(id));
      if (row) rows.push(row);
    }
    return { count: ids.length, rows };
  };

  const drift = (endpoint: Endpoint): void => {
    const d = faults.options.drift;
    if (!d || !faults.applies(endpoint)) return;
    for (let i = 0; i < (d.deletes ?? 0); i++) {
      const count = endpoint === 'contacts' ? dataset.contactCount : dataset.orderCount;
      if (count === 0) break;
      const position = faults.int(count);
      if (endpoint === 'contacts') dataset.deleteContact(dataset.contactAt(position).id);
      else dataset.deleteOrder(dataset.orderAt(position).id);
    }
    if (d.inserts) {
      if (endpoint === 'contacts') dataset.addContacts(d.inserts);
      else dataset.addOrders(d.inserts);
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    req.resume(); // §4: an empty body may be sent and is ignored.
    const url = new URL(req.url ?? '/', 'http://sample.invalid');
    const path = url.pathname;
    const preview = req.method === 'GET' ? samplePreviewFor(path) : null;
    if (preview) {
      // The image host of the sample templates: no tokens asked, no faults.
      previews++;
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(preview.length), 'cache-control': 'public, max-age=86400' });
      res.end(preview);
      return;
    }
    if (isControlPath(path)) return answerControl(req, res, url, { accessToken, advanceClock });
    requests++;
    let endpoint: Endpoint | null = null;
    if (path === `${SAMPLE_API_BASE_PATH}/contacts` || path === `${SAMPLE_API_BASE_PATH}/contacts/`) endpoint = 'contacts';
    else if (path === `${SAMPLE_API_BASE_PATH}/orders` || path === `${SAMPLE_API_BASE_PATH}/orders/`) endpoint = 'orders';
    if (endpoint === null) return sendError(res, 404, 'NOT_FOUND', `No endpoint at ${path}. The sample API serves ${SAMPLE_API_BASE_PATH}/contacts and ${SAMPLE_API_BASE_PATH}/orders/.`);
    if (req.method !== 'GET') return sendError(res, 405, 'METHOD_NOT_ALLOWED', `Use GET for ${path}.`, {}, { allow: 'GET' });
    byEndpoint[endpoint]++;

    const latency = faults.options.latencyMsByEndpoint?.[endpoint] ?? faults.options.latencyMs;
    if (latency) await sleep(latency);
    const decision = faults.decide(endpoint);
    if (decision !== 'none') faultCount++;
    switch (decision) {
      case 'drop':
        req.socket.destroy();
        return;
      case 'serverError': {
        const status = [500, 502, 503][faults.int(3)] as number;
        return sendError(res, status, 'SERVER_ERROR', 'The sample API simulated an internal error.');
      }
      case 'rateLimit':
        return sendError(res, 429, 'RATE_LIMITED', 'Too many requests; retry later.', {}, { 'retry-after': String(faults.options.retryAfterSeconds ?? 1) });
      case 'html': {
        const buf = Buffer.from(PROXY_ERROR_PAGE);
        res.writeHead(502, { 'content-type': 'text/html', 'content-length': String(buf.length) });
        res.end(buf);
        return;
      }
      default:
        break;
    }

    const bearer = bearerOf(req);
    if (bearer !== accessToken) {
      return sendError(res, 401, 'UNAUTHORIZED', bearer === null ? 'Missing bearer token in the Authorization header.' : 'The bearer token is not valid.');
    }
    if (endpoint === 'contacts' && req.headers.refreshtoken !== refreshToken) {
      return sendError(res, 401, 'UNAUTHORIZED', req.headers.refreshtoken === undefined ? 'Missing refreshtoken header.' : 'The refresh token is not valid.');
    }

    const rate = faults.applies(endpoint) ? (faults.options.invalidRecordRate ?? 0) : 0;
    let body: Buffer | undefined = rate === 0 ? prerendered?.answer(endpoint, url.searchParams) : undefined;
    if (body === undefined) {
      let page: { count: number; rows: Record<string, unknown>[] };
      try {
        page = pageOf(endpoint, url.searchParams);
      } catch (error) {
        if (error instanceof QueryError) return sendError(res, 400, 'BAD_REQUEST', error.message, { parameter: error.parameter });
        throw error;
      }
      if (rate > 0) {
        for (const row of page.rows) if (faults.random() < rate) corruptRow(endpoint, row, faults.int(1000));
      }
      body = pageBody(page.count, page.rows);
    }
    if (decision === 'truncate') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) });
      res.write(body.subarray(0, Math.max(1, body.length >> 1)), () => res.destroy());
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) });
    res.end(body);
    drift(endpoint);
  };

  ready = true;

  return {
    baseUrl: `${origin}${SAMPLE_API_BASE_PATH}`,
    dataset,
    advanceClock,
    setFaults: (f) => faults.set(f),
    stats: () => ({ requests, faults: faultCount, byEndpoint: { ...byEndpoint }, previews }),
    close,
  };
}

// ---------------------------------------------------------------------------------------------
// Direct run: node electron/main/sampleApi/server.ts --contacts N --orders M
// ---------------------------------------------------------------------------------------------


// Only when this very file is the entry point (never when bundled into the app, where
// import.meta.url is the bundle's).
if (process.argv[1] && import.meta.url.endsWith('/sampleApi/server.ts') && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = performance.now();
  startSampleApi(parseSampleApiArgs(process.argv.slice(2))).then(
    (api) => {
      console.log(`Sample API listening at ${api.baseUrl} (${api.dataset.contactCount} contacts, ${api.dataset.orderCount} orders) in ${Math.round(performance.now() - started)} ms`);
      console.log(`Sample access token:  ${SAMPLE_ACCESS_TOKEN}`);
      console.log(`Sample refresh token: ${SAMPLE_REFRESH_TOKEN}`);
      console.log('Press Ctrl+C to stop.');
      const stop = () => void api.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (error: unknown) => {
      console.error((error as Error).message);
      process.exit(1);
    },
  );
}
