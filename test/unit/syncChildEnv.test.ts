/**
 * The sync process's environment (electron/main/sync/childEnv.ts): an allow-list per platform,
 * and a real child started by the Node launcher (sync/process.ts) that reports what it got: no
 * token variable of the parent, PATH and HOME kept.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isSyncChildVariable, syncChildEnv } from '../../electron/main/sync/childEnv.ts';
import { nodeSyncProcessLauncher, SYNC_PROCESS_ENV } from '../../electron/main/sync/process.ts';

describe('isSyncChildVariable', () => {
  it.each<[string, NodeJS.Platform, boolean]>([
    ['PATH', 'linux', true],
    ['HOME', 'linux', true],
    ['TMPDIR', 'darwin', true],
    ['LANG', 'linux', true],
    ['LC_ALL', 'linux', true],
    ['LC_CTYPE', 'darwin', true],
    ['TZ', 'linux', true],
    ['XDG_RUNTIME_DIR', 'linux', true],
    ['HTTPS_PROXY', 'linux', true],
    ['NODE_EXTRA_CA_CERTS', 'darwin', true],
    ['LETTERDESK_DATA_DIR', 'linux', true],
    ['LETTERDESK_LOG_CONSOLE', 'linux', true],
    ['NODE_COMPILE_CACHE', 'linux', true],
    ['LETTERDESK_ACCESS_TOKEN', 'linux', false],
    ['LETTERDESK_REFRESH_TOKEN', 'linux', false],
    ['LETTERDESK_ACCESS_TOKEN', 'win32', false],
    ['letterdesk_access_token', 'win32', false],
    ['GITHUB_TOKEN', 'linux', false],
    ['LETTERDESK_AUTO_SYNC_MINUTES', 'linux', false],
    ['DBUS_SESSION_BUS_ADDRESS', 'linux', false],
    ['AWS_SECRET_ACCESS_KEY', 'linux', false],
    ['NODE_OPTIONS', 'linux', false],
    ['LD_PRELOAD', 'linux', false],
    ['path', 'linux', false],
    ['Path', 'win32', true],
    ['SystemRoot', 'win32', true],
    ['SYSTEMROOT', 'win32', true],
    ['windir', 'win32', true],
    ['ComSpec', 'win32', true],
    ['PATHEXT', 'win32', true],
    ['APPDATA', 'win32', true],
    ['LOCALAPPDATA', 'win32', true],
    ['USERPROFILE', 'win32', true],
    ['TEMP', 'win32', true],
    ['TMP', 'win32', true],
    ['ProgramData', 'win32', true],
    ['SystemRoot', 'linux', false],
  ])('%s on %s → %s', (name, platform, kept) => {
    expect(isSyncChildVariable(name, platform)).toBe(kept);
  });

  it('syncChildEnv keeps the allowed values, adds the extra ones and leaves its input alone', () => {
    const env = { PATH: '/usr/bin', HOME: '/home/a', LETTERDESK_ACCESS_TOKEN: 'secret-a', LETTERDESK_REFRESH_TOKEN: 'secret-r', OTHER: 'x', LC_ALL: 'C.UTF-8' };
    expect(syncChildEnv(env, { MALLOC_ARENA_MAX: '2' }, 'linux')).toEqual({ PATH: '/usr/bin', HOME: '/home/a', LC_ALL: 'C.UTF-8', MALLOC_ARENA_MAX: '2' });
    expect(env.LETTERDESK_ACCESS_TOKEN).toBe('secret-a');
  });
});

describe('the sync process started by the Node launcher', () => {
  const saved = { access: process.env.LETTERDESK_ACCESS_TOKEN, refresh: process.env.LETTERDESK_REFRESH_TOKEN };
  afterEach(() => {
    for (const [name, value] of [['LETTERDESK_ACCESS_TOKEN', saved.access], ['LETTERDESK_REFRESH_TOKEN', saved.refresh]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('gets no token variable of its parent, and keeps PATH, HOME and its own settings', async () => {
    process.env.LETTERDESK_ACCESS_TOKEN = 'parent-access-token-value';
    process.env.LETTERDESK_REFRESH_TOKEN = 'parent-refresh-token-value';
    const child = nodeSyncProcessLauncher(new URL('./fixtures/envChild.ts', import.meta.url), []);
    const env = await new Promise<Record<string, string>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the child sent nothing within 20 s')), 20_000);
      child.onMessage((message) => {
        clearTimeout(timer);
        resolve((message as { env: Record<string, string> }).env);
      });
      child.onExit((exit) => reject(new Error(`the child exited first: ${JSON.stringify(exit)}`)));
    });
    expect(Object.keys(env).filter((name) => /TOKEN/i.test(name))).toEqual([]);
    expect(Object.values(env).some((value) => value.includes('parent-access-token-value') || value.includes('parent-refresh-token-value'))).toBe(false);
    expect(env.PATH).toBe(process.env.PATH);
    expect(env.HOME).toBe(process.env.HOME);
    expect(env.MALLOC_ARENA_MAX).toBe(SYNC_PROCESS_ENV.MALLOC_ARENA_MAX);
  });
});
