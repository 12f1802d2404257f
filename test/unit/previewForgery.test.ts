/**
 * Template previews cannot be used to forge requests (electron/main/previews/address.ts,
 * download.ts): a profile whose service is elsewhere never has previews fetched from this
 * computer or a private network, neither by a literal address, nor by a name that resolves there,
 * nor by a connection that lands there. A profile on this computer (the sample API) still fetches
 * its loopback previews.
 *
 * Only loopback traffic is ever sent: names resolve through an injected resolver, and every socket
 * is opened through a guard connector that refuses (and records) any address outside loopback, so
 * a rule that failed would show as a recorded violation, never as traffic.
 */
import type { LookupAddress } from 'node:dns';
import net, { BlockList, isIP, type LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { previewAddressVerdict, mayFetchPreviewFrom } from '../../electron/main/previews/address.ts';
import { connectSocket, downloadPreview, type Connector, type DownloadOptions, type ResolvedAddress } from '../../electron/main/previews/download.ts';

const REMOTE = 'https://api.example.test/api/v1';
const LOCAL = 'http://127.0.0.1:4100/api/v1';

describe('previewAddressVerdict', () => {
  it.each([
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['2606:4700::6810:85e5', 'public'],
    ['::ffff:93.184.216.34', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['0.0.0.0', 'refused'],
    ['0.1.2.3', 'refused'],
    ['10.0.0.1', 'refused'],
    ['10.255.255.255', 'refused'],
    ['172.16.0.1', 'refused'],
    ['172.31.255.255', 'refused'],
    ['172.32.0.1', 'public'],
    ['172.15.255.255', 'public'],
    ['192.168.0.1', 'refused'],
    ['192.169.0.1', 'public'],
    ['100.64.0.1', 'refused'],
    ['100.127.255.255', 'refused'],
    ['100.128.0.1', 'public'],
    ['169.254.169.254', 'refused'],
    ['224.0.0.251', 'refused'],
    ['255.255.255.255', 'refused'],
    ['::', 'refused'],
    ['::7f00:1', 'refused'],
    ['fc00::1', 'refused'],
    ['fd12:3456::1', 'refused'],
    ['fe80::1', 'refused'],
    ['febf::1', 'refused'],
    ['ff02::1', 'refused'],
    ['::ffff:10.0.0.1', 'refused'],
    ['::ffff:a00:1', 'refused'],
    ['::ffff:192.168.1.1', 'refused'],
    ['::ffff:169.254.169.254', 'refused'],
    ['::ffff:100.64.0.1', 'refused'],
    ['::ffff:0.0.0.0', 'refused'],
    ['64:ff9b::10.0.0.1', 'refused'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['localhost', 'refused'],
    ['example.com', 'refused'],
    ['', 'refused'],
  ])('%s → %s', (address, verdict) => {
    expect(previewAddressVerdict(address)).toBe(verdict);
  });
  it('allows loopback only to a profile on this computer, and private ranges to nobody', () => {
    expect([mayFetchPreviewFrom('127.0.0.1', true), mayFetchPreviewFrom('127.0.0.1', false)]).toEqual([true, false]);
    expect([mayFetchPreviewFrom('10.0.0.1', true), mayFetchPreviewFrom('10.0.0.1', false)]).toEqual([false, false]);
    expect([mayFetchPreviewFrom('93.184.216.34', true), mayFetchPreviewFrom('93.184.216.34', false)]).toEqual([true, true]);
  });
});

const loopbackOnly = new BlockList();
loopbackOnly.addSubnet('127.0.0.0', 8, 'ipv4');
loopbackOnly.addAddress('::1', 'ipv6');
const isLoopback = (address: string): boolean => {
  const family = isIP(address);
  return family !== 0 && loopbackOnly.check(address, family === 4 ? 'ipv4' : 'ipv6');
};

/** Every host asked of the resolver and the connector, and every attempt to leave loopback. */
const seen = { resolved: [] as string[], connected: [] as string[], violations: [] as string[] };
afterEach(() => {
  expect(seen.violations, 'an address outside loopback reached the connector').toEqual([]);
  seen.resolved.length = 0;
  seen.connected.length = 0;
});

const NAMES: Record<string, ResolvedAddress[]> = {
  'previews.example.test': [{ address: '127.0.0.1', family: 4 }],
  'mapped.example.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
  'lan.example.test': [{ address: '10.1.2.3', family: 4 }],
  'metadata.example.test': [{ address: '169.254.169.254', family: 4 }],
  'cgnat.example.test': [{ address: '100.64.7.7', family: 4 }],
  'ula.example.test': [{ address: 'fd00::7', family: 6 }],
  'mixed.example.test': [
    { address: '93.184.216.34', family: 4 },
    { address: '192.168.0.10', family: 4 },
  ],
};

/** The injected resolver: a fixed table, recording each name asked. */
const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
  seen.resolved.push(hostname);
  const addresses = NAMES[hostname];
  if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses;
};

/**
 * The injected connector: opens the real socket with the downloader's own lookup, but refuses
 * (and records as a violation) a literal or a looked-up address outside loopback.
 */
const guard: Connector = (request) => {
  seen.connected.push(request.host);
  if (isIP(request.host) !== 0 && !isLoopback(request.host)) {
    seen.violations.push(request.host);
    throw new Error(`test guard: no connection to ${request.host}`);
  }
  const lookup: LookupFunction = (hostname, options, callback) =>
    request.lookup(hostname, options, (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
      const addresses = typeof address === 'string' ? [address] : address.map((a) => a.address);
      const outside = error === null ? addresses.filter((a) => !isLoopback(a)) : [];
      if (outside.length > 0) {
        seen.violations.push(...outside);
        return callback(new Error('test guard: lookup led outside loopback'), '', 0);
      }
      (callback as (e: NodeJS.ErrnoException | null, a: string | LookupAddress[], f?: number) => void)(error, address, family);
    });
  return connectSocket({ ...request, lookup });
};

/** A raw TCP server on 127.0.0.1 that counts connections and bytes received, answering nothing. */
async function startListener(): Promise<{ port: number; connections: () => number; bytes: () => number; close: () => Promise<void> }> {
  let connections = 0;
  let bytes = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('data', (chunk) => (bytes += chunk.length));
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    bytes: () => bytes,
    close: () =>
      new Promise<void>((ok) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => ok());
      }),
  };
}

const options = (profileBaseUrl: string, more: Partial<DownloadOptions> = {}): DownloadOptions => ({ profileBaseUrl, resolve, connect: guard, timeoutMs: 3000, ...more });

const reason = async (url: string, opts: DownloadOptions): Promise<string> => {
  try {
    await downloadPreview(url, opts);
  } catch (error) {
    return (error as Error).message;
  }
  return 'downloaded';
};

describe('a remote profile and every other refused address', () => {
  it.each([
    'http://127.0.0.1:1/x.png',
    'http://localhost:1/x.png',
    'http://[::1]:1/x.png',
    'https://127.0.0.1:1/x.png',
    'https://[::1]:1/x.png',
    'https://[::ffff:127.0.0.1]:1/x.png',
    'https://[0:0:0:0:0:ffff:7f00:1]:1/x.png',
    'https://0.0.0.0:1/x.png',
    'https://10.0.0.8/x.png',
    'https://172.16.0.8/x.png',
    'https://192.168.0.8/x.png',
    'https://100.64.0.8/x.png',
    'https://169.254.169.254/latest/meta-data',
    'https://[fd00::8]/x.png',
    'https://[fe80::8]/x.png',
    'https://[::ffff:192.168.0.8]/x.png',
    'http://images.example.com/x.png',
  ])('%s is refused before any lookup or connection', async (url) => {
    expect(await reason(url, options(REMOTE))).toMatch(/^Not downloaded: /);
    expect(seen.resolved).toEqual([]);
    expect(seen.connected).toEqual([]);
  });
  it('refuses private literals for a profile on this computer too, before any connection', async () => {
    for (const url of ['https://10.0.0.8/x.png', 'https://169.254.169.254/x', 'https://[fd00::8]/x.png', 'http://192.168.0.8/x.png']) {
      expect(await reason(url, options(LOCAL)), url).toMatch(/^Not downloaded: /);
    }
    expect(seen.connected).toEqual([]);
  });
});

describe('names, resolved and connected', () => {
  it('refuses a name that resolves to this computer, and the loopback server sees no connection', async () => {
    const listener = await startListener();
    try {
      for (const name of ['previews.example.test', 'mapped.example.test']) {
        const message = await reason(`https://${name}:${listener.port}/admin/delete-everything?confirm=1`, options(REMOTE));
        const resolvedTo = name === 'mapped.example.test' ? '::ffff:127.0.0.1' : '127.0.0.1';
        expect(message).toBe(`Not downloaded: ${name} resolves to ${resolvedTo}, an address of this computer or a private network, and previews of a service elsewhere come only from public addresses.`);
      }
      expect(seen.resolved).toEqual(['previews.example.test', 'mapped.example.test']);
      expect(listener.connections()).toBe(0);
    } finally {
      await listener.close();
    }
  });
  it.each(['lan.example.test', 'metadata.example.test', 'cgnat.example.test', 'ula.example.test', 'mixed.example.test'])(
    'refuses %s, which resolves (also) to a private address, for any profile',
    async (name) => {
      for (const profile of [REMOTE, LOCAL]) {
        expect(await reason(`https://${name}/x.png`, options(profile))).toMatch(new RegExp(`^Not downloaded: ${name.replace(/\./g, '\\.')} resolves to `));
      }
      expect(seen.resolved).toEqual([name, name]);
    },
  );
  it('checks the address actually connected to: a socket that lands on this computer sends not one byte', async () => {
    const listener = await startListener();
    // A connector that ignores the checked lookup, as a name re-pointed between lookup and connect would.
    const landsOnLoopback: Connector = (request) => {
      seen.connected.push(request.host);
      return connectSocket({ ...request, host: '127.0.0.1' });
    };
    try {
      for (const scheme of ['https', 'http']) {
        const message = await reason(`${scheme}://images.example.test:${listener.port}/x.png`, options(REMOTE, { connect: landsOnLoopback }));
        if (scheme === 'http') expect(message).toMatch(/must be an https address/);
        else expect(message).toBe('Not downloaded: the connection to images.example.test went to 127.0.0.1, an address of this computer or a private network, and previews of a service elsewhere come only from public addresses.');
      }
      await new Promise((ok) => setTimeout(ok, 100));
      expect(listener.connections()).toBe(1);
      expect(listener.bytes()).toBe(0);
    } finally {
      await listener.close();
    }
  });
  it('a profile on this computer fetches a loopback preview by name over https only through the checked lookup', async () => {
    const listener = await startListener();
    try {
      // The TLS hello reaches the loopback listener (which never answers): the name was allowed.
      const message = await reason(`https://previews.example.test:${listener.port}/x.png`, options(LOCAL, { timeoutMs: 400 }));
      expect(message).toBe('The image host did not answer within 0.4 s.');
      expect(seen.resolved).toEqual(['previews.example.test']);
      expect(listener.bytes()).toBeGreaterThan(0);
    } finally {
      await listener.close();
    }
  });
});
