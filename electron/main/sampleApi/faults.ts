/**
 * Switchable faults of the sample API, for tests and benchmarks. All randomness comes from one
 * seeded generator, so a given sequence of requests meets the same faults on every run.
 *
 * Per request, in this order (each a share 0…1 of the requests to a faulted endpoint):
 *  1. `latencyMs` — wait this long before answering (every request, not counted as a fault);
 *  2. `dropRate` — destroy the connection without sending a byte (client sees a network error);
 *  3. `serverErrorRate` — answer 500, 502 or 503 with a JSON error body;
 *  4. `rateLimitRate` — answer 429 with `Retry-After: retryAfterSeconds` and a JSON error body;
 *  5. `htmlErrorRate` — answer 502 with an HTML page, as a proxy or load balancer does;
 *  6. `truncateRate` — answer 200 with the full `Content-Length` but cut the connection halfway
 *     through the body (client sees a network error while reading the body);
 *  7. `invalidRecordRate` — on a successful page, replace this share of the rows with versions that
 *     violate the §2 schema (the id is kept, so a client can report which record is bad);
 *  8. `drift` — after each successful page, insert `inserts` new records (they come first in the
 *     newest-first order, shifting every later row) and delete `deletes` random existing ones.
 * `maxFaults` bounds the number of faulted answers (2–6); after that the server answers normally, so
 * a test can say "fail twice, then succeed". `endpoints` limits faults to some endpoints.
 */

import { Rng } from './random.ts';

/** Fault switches; every field optional, all off by default. */
export interface FaultOptions {
  /** Seed of the fault generator. @default 1 */
  seed?: number;
  /** Delay before every answer, in milliseconds. @default 0 */
  latencyMs?: number;
  /** Delay before the answers of one endpoint, in milliseconds, in place of `latencyMs` for it. @default none */
  latencyMsByEndpoint?: { contacts?: number; orders?: number };
  /** Share (0…1) of requests answered 500/502/503 with a JSON body. */
  serverErrorRate?: number;
  /** Share (0…1) of requests answered 429. */
  rateLimitRate?: number;
  /** `Retry-After` of a 429, in whole seconds (0 allowed). @default 1 */
  retryAfterSeconds?: number;
  /** Share (0…1) of requests whose connection is destroyed before any answer. */
  dropRate?: number;
  /** Share (0…1) of requests answered 200 with a body cut off halfway (connection destroyed). */
  truncateRate?: number;
  /** Share (0…1) of requests answered 502 with an HTML proxy error page. */
  htmlErrorRate?: number;
  /** Share (0…1) of the rows of a successful page replaced by schema-violating records. */
  invalidRecordRate?: number;
  /** Records inserted and deleted after each successful page read (per endpoint that was read). */
  drift?: { inserts?: number; deletes?: number };
  /** Stop injecting faults 2–6 after this many. @default unlimited */
  maxFaults?: number;
  /** Endpoints that get faults. @default both */
  endpoints?: ('contacts' | 'orders')[];
}

/** What the server does with one request. */
export type FaultDecision = 'none' | 'drop' | 'serverError' | 'rateLimit' | 'html' | 'truncate';

/** Holds the options and the seeded generator; one per server. */
export class FaultState {
  options: FaultOptions = {};
  private rng = new Rng(1);
  private faultsGiven = 0;

  constructor(options?: FaultOptions) {
    this.set(options ?? {});
  }

  /** Replaces the options and restarts the generator and the `maxFaults` budget. */
  set(options: FaultOptions): void {
    for (const key of ['serverErrorRate', 'rateLimitRate', 'dropRate', 'truncateRate', 'htmlErrorRate', 'invalidRecordRate'] as const) {
      const v = options[key];
      if (v !== undefined && !(v >= 0 && v <= 1)) throw new RangeError(`fault ${key} must be between 0 and 1 (got ${v})`);
    }
    this.options = { ...options };
    this.rng = new Rng(options.seed ?? 1);
    this.faultsGiven = 0;
  }

  applies(endpoint: 'contacts' | 'orders'): boolean {
    return !this.options.endpoints || this.options.endpoints.includes(endpoint);
  }

  /** Draws the fault (if any) for one request to `endpoint`. */
  decide(endpoint: 'contacts' | 'orders'): FaultDecision {
    if (!this.applies(endpoint)) return 'none';
    if (this.options.maxFaults !== undefined && this.faultsGiven >= this.options.maxFaults) return 'none';
    const o = this.options;
    const pairs: [FaultDecision, number | undefined][] = [
      ['drop', o.dropRate],
      ['serverError', o.serverErrorRate],
      ['rateLimit', o.rateLimitRate],
      ['html', o.htmlErrorRate],
      ['truncate', o.truncateRate],
    ];
    for (const [decision, rate] of pairs) {
      if (rate && this.rng.next() < rate) {
        this.faultsGiven++;
        return decision;
      }
    }
    return 'none';
  }

  /** A float in [0, 1) from the fault generator. */
  random(): number {
    return this.rng.next();
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return this.rng.int(n);
  }
}

const INVALID_CONTACT_MUTATIONS: ((row: Record<string, unknown>) => void)[] = [
  (row) => {
    row.isLiveMode = 'yes';
  },
  (row) => {
    row.createdAt = 'last Tuesday';
  },
  (row) => {
    delete row.fullName;
  },
  (row) => {
    row.ContactLabels = 'VIP';
  },
  (row) => {
    row.isVerified = 'maybe';
  },
];

const INVALID_ORDER_MUTATIONS: ((row: Record<string, unknown>) => void)[] = [
  (row) => {
    row.status = 'shipped';
  },
  (row) => {
    row.contacts = null;
  },
  (row) => {
    delete row.template;
  },
  (row) => {
    row.isLiveMode = 1;
  },
  (row) => {
    row.orgId = 4207;
  },
];

/**
 * Makes one row violate the §2 schema in place (keeping its id).
 * @param which chooses the mutation (any non-negative integer)
 */
export function corruptRow(endpoint: 'contacts' | 'orders', row: Record<string, unknown>, which: number): void {
  const list = endpoint === 'contacts' ? INVALID_CONTACT_MUTATIONS : INVALID_ORDER_MUTATIONS;
  (list[which % list.length] as (row: Record<string, unknown>) => void)(row);
}

/** The HTML page a proxy answers with on a 502. */
export const PROXY_ERROR_PAGE = `<!DOCTYPE html>
<html><head><title>502 Bad Gateway</title></head>
<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>
`;
