import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheFilePath, logsDir, profilesFilePath, resolveDataDir } from '../../electron/main/base/paths.ts';

describe('resolveDataDir', () => {
  it('uses ~/.config/Letterdesk on Linux, honouring an absolute XDG_CONFIG_HOME', () => {
    expect(resolveDataDir({ env: {}, platform: 'linux', home: '/home/ada' })).toBe('/home/ada/.config/Letterdesk');
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: '/xdg/conf' }, platform: 'linux', home: '/home/ada' })).toBe('/xdg/conf/Letterdesk');
    // A relative XDG_CONFIG_HOME is invalid per the XDG spec and ignored, as Electron does.
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: 'conf' }, platform: 'linux', home: '/home/ada' })).toBe('/home/ada/.config/Letterdesk');
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: '' }, platform: 'freebsd', home: '/home/ada' })).toBe('/home/ada/.config/Letterdesk');
  });

  it('uses Application Support on macOS and %APPDATA% on Windows', () => {
    expect(resolveDataDir({ env: { XDG_CONFIG_HOME: '/x' }, platform: 'darwin', home: '/Users/ada' })).toBe('/Users/ada/Library/Application Support/Letterdesk');
    expect(resolveDataDir({ env: { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, platform: 'win32', home: 'C:\\Users\\ada' })).toBe(
      'C:\\Users\\ada\\AppData\\Roaming\\Letterdesk',
    );
    expect(resolveDataDir({ env: {}, platform: 'win32', home: 'C:\\Users\\ada' })).toBe('C:\\Users\\ada\\AppData\\Roaming\\Letterdesk');
  });

  it('lets --data-dir win over LETTERDESK_DATA_DIR, which wins over the platform folder', () => {
    const env = { LETTERDESK_DATA_DIR: '/srv/letterdesk', XDG_CONFIG_HOME: '/xdg' };
    expect(resolveDataDir({ env, platform: 'linux', home: '/home/ada' })).toBe('/srv/letterdesk');
    expect(resolveDataDir({ override: '/tmp/ld', env, platform: 'linux', home: '/home/ada' })).toBe('/tmp/ld');
    expect(resolveDataDir({ override: '  ', env, platform: 'linux', home: '/home/ada' })).toBe('/srv/letterdesk');
    expect(resolveDataDir({ override: 'D:\\ld\\', env: {}, platform: 'win32', home: 'C:\\Users\\ada' })).toBe('D:\\ld\\');
  });

  it('resolves a relative override against the working directory', () => {
    expect(resolveDataDir({ override: 'data', env: {}, platform: 'linux', home: '/h' })).toBe(path.resolve('data'));
    expect(resolveDataDir({ env: { LETTERDESK_DATA_DIR: './d' }, platform: 'linux', home: '/h' })).toBe(path.resolve('d'));
  });

  it('defaults to the running process (env, platform, home)', () => {
    const previous = process.env.LETTERDESK_DATA_DIR;
    process.env.LETTERDESK_DATA_DIR = '/from/env';
    try {
      expect(resolveDataDir()).toBe('/from/env');
    } finally {
      if (previous === undefined) delete process.env.LETTERDESK_DATA_DIR;
      else process.env.LETTERDESK_DATA_DIR = previous;
    }
  });
});

describe('files in the data directory', () => {
  it('places the cache, profiles file and logs', () => {
    expect(cacheFilePath('/d', 'acme-demo-x1y2z3')).toBe('/d/cache/acme-demo-x1y2z3.sqlite');
    expect(profilesFilePath('/d')).toBe('/d/profiles.json');
    expect(logsDir('/d')).toBe('/d/logs');
  });

  it('refuses profile ids that could leave the cache folder', () => {
    for (const id of ['../evil', 'a/b', '', 'UPPER', 'x'.repeat(65), '..']) {
      expect(() => cacheFilePath('/d', id), id).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    }
  });
});
