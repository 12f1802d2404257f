// The sample API over real loopback HTTP, spoken to with plain fetch (no client in between).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { startSampleApi, SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN, type SampleApi } from '../../electron/main/sampleApi/server.ts';
import { SUCCESS_MESSAGE } from '../../shared/serviceRecords.ts';
import { dayBefore, dmy } from '../helpers/sampleDays.ts';

const auth = { authorization: `Bearer ${SAMPLE_ACCESS_TOKEN}`, refreshtoken: SAMPLE_REFRESH_TOKEN };

interface Row {
  id: string;
  meta?: { account_id: string };
  propertyAddresses?: unknown[];
}
interface Body {
  message: string;
  error?: string;
  parameter?: string;
  data: { count: number; rows: Row[] };
}

async function get(api: SampleApi, path: string, headers: Record<string, string> = auth): Promise<{ status: number; body: Body; headers: Headers }> {
  const res = await fetch(`${api.baseUrl}${path}`, { headers });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text), headers: res.headers };
}

describe('sample API server', () => {
  let api: SampleApi;
  beforeAll(async () => {
    api = await startSampleApi({ contacts: 2000, orders: 400, maxPageSize: 500 });
  });
  afterAll(() => api.close());

  it('serves both endpoints under /api/v1 on loopback in the §2.1 envelope', async () => {
    expect(api.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    const c = await get(api, '/contacts');
    expect(c.status).toBe(200);
    expect(c.headers.get('content-type')).toMatch(/application\/json/);
    expect(c.body.message).toBe(SUCCESS_MESSAGE);
    expect(c.body.data.count).toBe(2000);
    expect(c.body.data.rows).toHaveLength(10); // §4.1 default pageSize 10, page 0
    expect(c.body.data.rows[0]?.id).toBe(api.dataset.contactAt(0).id);
    const o = await get(api, '/orders/?page=0&pageSize=3', { authorization: auth.authorization });
    expect(o.status).toBe(200);
    expect(o.body.data.count).toBe(400);
    expect(o.body.data.rows.map((r: { id: string }) => r.id)).toEqual(api.dataset.ordersFrom(0, 3).map((r) => r.id));
    // with and without the trailing slash
    expect((await get(api, '/orders?page=0&pageSize=1')).status).toBe(200);
    expect((await get(api, '/contacts/?page=1&pageSize=2')).body.data.rows[0]?.id).toBe(api.dataset.contactAt(2).id);
    expect((await get(api, '/nothing')).status).toBe(404);
  });

  it('pages cover the data exactly and the maximum page size caps rows', async () => {
    const ids: string[] = [];
    for (let page = 0; page < 7; page++) {
      const r = await get(api, `/contacts?page=${page}&pageSize=300`);
      ids.push(...r.body.data.rows.map((x: { id: string }) => x.id));
    }
    expect(ids).toEqual([...api.dataset.contactIds()]);
    const capped = await get(api, '/contacts?page=0&pageSize=900');
    expect(capped.body.data.rows).toHaveLength(500);
    expect(capped.body.data.count).toBe(2000);
    expect((await get(api, '/contacts?page=99&pageSize=100')).body.data.rows).toEqual([]);
  });

  it('orders reject a missing page or pageSize; malformed values get 400 with a JSON error', async () => {
    for (const q of ['?pageSize=10', '?page=0', '', '?page=-1&pageSize=10', '?page=0&pageSize=0', '?page=x&pageSize=1']) {
      const r = await get(api, `/orders/${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error).toBe('BAD_REQUEST');
      expect(typeof r.body.message).toBe('string');
    }
    for (const q of [
      'pageSize=abc',
      'addressStatus=Pending',
      'addressStatus=%5B%22Failed%22',
      'lastMailedDate=%7Bnope',
      'lastMailedDate=%7B%22startDate%22%3A%2231-31-2024%22%7D',
      'withPropertyAddresses=maybe',
      'isReturnAddress=2',
    ]) {
      const r = await get(api, `/contacts?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error).toBe('BAD_REQUEST');
    }
    for (const q of ['orderStatus=%5Bnope', 'sources=%22Web', 'createdDate=2024/01/01', 'createdDate=2024-02-30', 'createdDate=%7BstartDate%3A%2231-31-2024%22%7D', 'createdDate=2024-01-01,2024-02-01,2024-03-01', 'scheduledDate=tomorrow', 'processingDate=2024-13-01']) {
      const r = await get(api, `/orders/?page=0&pageSize=5&${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.parameter).toBe(q.split('=')[0]);
    }
    // orderStatus is a string (§4.2): text that is no status code matches nothing, it is no error
    const text = await get(api, '/orders/?page=0&pageSize=5&orderStatus=done');
    expect(text.status).toBe(200);
    expect(text.body.data.count).toBe(0);
  });

  it('checks the bearer token on both endpoints and refreshtoken on contacts', async () => {
    const cases: [string, Record<string, string>][] = [
      ['/contacts', {}],
      ['/contacts', { authorization: 'Bearer wrong', refreshtoken: SAMPLE_REFRESH_TOKEN }],
      ['/contacts', { authorization: auth.authorization }],
      ['/contacts', { authorization: auth.authorization, refreshtoken: 'wrong' }],
      ['/orders/?page=0&pageSize=1', {}],
      ['/orders/?page=0&pageSize=1', { authorization: `Basic ${SAMPLE_ACCESS_TOKEN}` }],
    ];
    for (const [path, headers] of cases) {
      const r = await get(api, path, headers);
      expect(r.status, JSON.stringify(headers)).toBe(401);
      expect(r.body.error).toBe('UNAUTHORIZED');
      expect(JSON.stringify(r.body)).not.toContain(SAMPLE_ACCESS_TOKEN);
    }
    // orders need only the bearer token (§5.3)
    expect((await get(api, '/orders/?page=0&pageSize=1', { authorization: auth.authorization })).status).toBe(200);
  });

  it('accepts the plain and URL-encoded forms of addressStatus, lastMailedStatus and lastMailedDate alike', async () => {
    const idsOf = async (q: string) => {
      const r = await get(api, `/contacts?pageSize=500&${q}`);
      expect(r.status, q).toBe(200);
      return { count: r.body.data.count as number, ids: r.body.data.rows.map((x: { id: string }) => x.id).join() };
    };
    const enc = encodeURIComponent;
    // the data's dates are relative to the dataset's day: a range within its past year
    const [start, end] = [dayBefore(api.dataset.asOf, 200), dayBefore(api.dataset.asOf, 20)];
    const groups = [
      [
        'addressStatus=Failed&addressStatus=Corrected',
        'addressStatus[]=Failed&addressStatus[]=Corrected',
        'addressStatus[0]=Failed&addressStatus[1]=Corrected',
        `addressStatus=${enc('["Failed","Corrected"]')}`,
        `addressStatus=${enc(enc('["Failed","Corrected"]'))}`,
      ],
      ['lastMailedStatus=In%20Transit&lastMailedStatus=Mailed', `lastMailedStatus=${enc('["In Transit","Mailed"]')}`, 'lastMailedStatus[]=In+Transit&lastMailedStatus[]=Mailed'],
      [
        `lastMailedDate[startDate]=${dmy(start)}&lastMailedDate[endDate]=${dmy(end)}`,
        `lastMailedDate[startDate]=${start}&lastMailedDate[endDate]=${end}`,
        `lastMailedDate=${enc(JSON.stringify({ startDate: start, endDate: end }))}`,
        `lastMailedDate=${enc(JSON.stringify({ startDate: dmy(start), endDate: dmy(end) }))}`,
        `lastMailedDate=${enc(enc(JSON.stringify({ startDate: start, endDate: end })))}`,
      ],
    ];
    for (const forms of groups) {
      const results = await Promise.all(forms.map(idsOf));
      expect(results[0]!.count).toBeGreaterThan(0);
      expect(results[0]!.count).toBeLessThan(2000);
      for (const r of results) expect(r).toEqual(results[0]);
    }
  });

  it('withPropertyAddresses adds a propertyAddresses list to each contact', async () => {
    const without = await get(api, '/contacts?pageSize=20');
    const withIt = await get(api, '/contacts?pageSize=20&withPropertyAddresses=true');
    expect(without.body.data.rows.every((r: object) => !('propertyAddresses' in r))).toBe(true);
    expect(withIt.body.data.rows.every((r) => Array.isArray(r.propertyAddresses))).toBe(true);
    expect(withIt.body.data.rows.some((r) => (r.propertyAddresses?.length ?? 0) > 0)).toBe(true);
  });

  it('ignores a request body and answers 405 to other methods', async () => {
    const res = await fetch(`${api.baseUrl}/contacts`, { method: 'POST', headers: auth, body: '{}' });
    expect(res.status).toBe(405);
    expect(((await res.json()) as Body).error).toBe('METHOD_NOT_ALLOWED');
  });

  it('refuses to listen anywhere but loopback', async () => {
    await expect(startSampleApi({ contacts: 1, orders: 1, host: '0.0.0.0' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(startSampleApi({ contacts: 1, orders: 1, host: '192.168.1.2' })).rejects.toMatchObject({ code: 'VALIDATION' });
  });

  it('starts with 100,000 contacts / 20,000 orders and serves any page', async () => {
    const big = await startSampleApi({ contacts: 100_000, orders: 20_000 });
    try {
      const last = await get(big, '/contacts?page=99&pageSize=1000');
      expect(last.body.data.rows).toHaveLength(1000);
      expect(last.body.data.rows.at(-1)?.id).toBe('10000001');
      const mid = await get(big, '/orders/?page=12345&pageSize=1');
      expect(mid.body.data.rows[0]?.id).toBe(big.dataset.orderAt(12345).id);
      const scoped = await get(big, '/contacts?pageSize=1000&page=3&meta.account_id=acct-1002');
      expect(scoped.body.data.count).toBeGreaterThan(5000);
      expect(scoped.body.data.rows.every((r: { meta?: { account_id: string } }) => r.meta?.account_id === 'acct-1002')).toBe(true);
    } finally {
      await big.close();
    }
  });

  it('prerenderPageSize answers plain pages of that size from memory with the same bytes, and nothing else', async () => {
    const options = { contacts: 2500, orders: 700, seed: 7, maxPageSize: 1000 };
    const plain = await startSampleApi(options);
    const pre = await startSampleApi({ ...options, prerenderPageSize: 1000 });
    // The same bytes but for each server's own origin, which the orders' thumbnail addresses name.
    const bytes = async (server: SampleApi, path: string) => {
      const res = await fetch(`${server.baseUrl}${path}`, { headers: auth });
      return { status: res.status, text: (await res.text()).replaceAll(new URL(server.baseUrl).origin, '<origin>') };
    };
    try {
      for (const path of ['/contacts?page=0&pageSize=1000', '/contacts?page=2&pageSize=1000', '/contacts?page=3&pageSize=1000', '/orders/?page=0&pageSize=1000', '/orders?page=1&pageSize=1000',
        // not prerendered: another size, a filter, property addresses, a malformed query
        '/contacts?page=1&pageSize=999', '/contacts?page=0&pageSize=1000&meta.account_id=acct-1002', '/contacts?page=0&pageSize=1000&withPropertyAddresses=true', '/orders/?page=x&pageSize=1000']) {
        expect(await bytes(pre, path), path).toEqual(await bytes(plain, path));
      }
      // After an edit the data served is the edited data, not the prerendered page.
      const gone = pre.dataset.contactAt(0).id;
      pre.dataset.deleteContact(gone);
      plain.dataset.deleteContact(gone);
      const after = await bytes(pre, '/contacts?page=0&pageSize=1000');
      expect(after).toEqual(await bytes(plain, '/contacts?page=0&pageSize=1000'));
      expect(JSON.parse(after.text).data.rows.some((r: Row) => r.id === gone)).toBe(false);
      await expect(startSampleApi({ ...options, prerenderPageSize: 5000 })).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringMatching(/prerenderPageSize/) });
      await expect(startSampleApi({ ...options, prerenderPageSize: 1000, prerenderOrdersPageSize: 0 })).rejects.toMatchObject({ code: 'VALIDATION', message: expect.stringMatching(/prerenderOrdersPageSize/) });
    } finally {
      await plain.close();
      await pre.close();
    }
    // Orders at a page size of their own (the sync's character budget divides pages of orders).
    const plain2 = await startSampleApi(options);
    const pre2 = await startSampleApi({ ...options, prerenderPageSize: 1000, prerenderOrdersPageSize: 250 });
    try {
      // (page 0 of orders at 1000 is prerendered too: a sync asks it first and divides from there)
      for (const path of ['/contacts?page=1&pageSize=1000', '/orders/?page=0&pageSize=250', '/orders/?page=2&pageSize=250', '/orders/?page=0&pageSize=1000', '/orders/?page=1&pageSize=1000', '/orders/?page=0&pageSize=1000&orderStatus=1']) {
        expect(await bytes(pre2, path), path).toEqual(await bytes(plain2, path));
      }
    } finally {
      await plain2.close();
      await pre2.close();
    }
  });

  it('runs directly with node (type stripping) from the command line', async () => {
    const child = spawn(process.execPath, ['electron/main/sampleApi/server.ts', '--contacts', '100000', '--orders', '20000'], { cwd: `${import.meta.dirname}/../..` });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
        setTimeout(() => reject(new Error(`no output: ${out}`)), 15_000);
      });
      const url = /(http:\/\/127\.0\.0\.1:\d+\/api\/v1)/.exec(line)?.[1];
      expect(url).toBeDefined();
      const res = await fetch(`${url}/contacts?page=4999&pageSize=20`, { headers: auth });
      const body = (await res.json()) as Body;
      expect(body.data.count).toBe(100_000);
      expect(body.data.rows).toHaveLength(20);
      expect(body.data.rows.at(-1)?.id).toBe('10000001');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
