/**
 * The environment the sync process starts with, for both launchers (sync/process.ts for Node,
 * app/syncProcess.ts for Electron). An allow-list, not a copy of the parent's: the process parses
 * what a possibly hostile service sends, so it gets only what a process needs to run and to reach
 * the network, and never the tokens (`LETTERDESK_ACCESS_TOKEN`, `LETTERDESK_REFRESH_TOKEN`), which
 * reach it in the `start` message for the one profile it syncs. It never uses the keychain, so
 * the D-Bus session address stays out too.
 */

/** Variables kept on every platform, by exact name. */
const COMMON = [
  'PATH',
  'HOME',
  'TMPDIR',
  'TMP',
  'TEMP',
  'TZ',
  'LANG',
  'LANGUAGE',
  'USER',
  'LOGNAME',
  'SHELL',
  'XDG_RUNTIME_DIR',
  // How the process reaches the service: proxies and extra certificate authorities.
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'NODE_USE_ENV_PROXY',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  // Where Node keeps the code it compiled, so the next start skips compiling it again.
  'NODE_COMPILE_CACHE',
  // Letterdesk's own settings that the process reads (the data folder, console logging).
  'LETTERDESK_DATA_DIR',
  'LETTERDESK_LOG_CONSOLE',
];

/** Windows' system variables (Windows compares names without regard to case). */
const WINDOWS = [
  'SystemRoot',
  'SystemDrive',
  'windir',
  'ComSpec',
  'PATHEXT',
  'APPDATA',
  'LOCALAPPDATA',
  'USERPROFILE',
  'USERNAME',
  'USERDOMAIN',
  'HOMEDRIVE',
  'HOMEPATH',
  'ProgramData',
  'ProgramFiles',
  'ProgramFiles(x86)',
  'CommonProgramFiles',
  'NUMBER_OF_PROCESSORS',
  'PROCESSOR_ARCHITECTURE',
  'OS',
];

const exact = new Set(COMMON);
const windows = new Set([...COMMON, ...WINDOWS].map((name) => name.toUpperCase()));

/**
 * Whether the variable `name` is passed to the sync process: a name of the allow-list above, or a
 * locale category (`LC_*`). Never a name ending in `_TOKEN`.
 * @param name a variable name as it appears in the parent's environment
 * @param platform `process.platform`; on `win32` names compare without regard to case
 */
export function isSyncChildVariable(name: string, platform: NodeJS.Platform): boolean {
  if (/_TOKEN$/i.test(name)) return false;
  if (platform === 'win32') return windows.has(name.toUpperCase()) || /^LC_[A-Z]+$/i.test(name);
  return exact.has(name) || /^LC_[A-Z]+$/.test(name);
}

/**
 * The sync process's environment: the allowed variables of `env` (see {@link isSyncChildVariable}),
 * then `extra` (the process's own settings, such as its allocator's).
 * @param env the parent's environment
 * @param extra variables set for the sync process whatever the parent has
 * @param platform @default process.platform
 * @returns a new object; `env` is not changed
 */
export function syncChildEnv(env: NodeJS.ProcessEnv, extra: Readonly<Record<string, string>>, platform: NodeJS.Platform = process.platform): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && isSyncChildVariable(name, platform)) out[name] = value;
  return { ...out, ...extra };
}
