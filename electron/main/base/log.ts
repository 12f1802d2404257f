/**
 * The logger of the main side (Electron main, workers, CLI): electron-log, writing to the platform's
 * usual log folder in the app (`~/.config/Letterdesk/logs/main.log`, `~/Library/Logs/Letterdesk/`,
 * `%APPDATA%\Letterdesk\logs\`) and to `<data dir>/logs/cli.log` for the CLI.
 *
 * Every line passes through {@link redact}: secrets registered with {@link registerSecret}
 * (access and refresh tokens, as soon as they are read) and anything that looks like a bearer header
 * are replaced by `[redacted]` before any transport sees them.
 */
import log from 'electron-log/node';

const secrets = new Set<string>();

/** Registers a value that must never appear in a log line (ignored when shorter than 4 characters). */
export function registerSecret(value: string | null | undefined): void {
  if (value && value.length >= 4) secrets.add(value);
}

/** Forgets a registered secret (after the tokens of a profile were removed). */
export function forgetSecret(value: string | null | undefined): void {
  if (value) secrets.delete(value);
}

/**
 * Replaces registered secrets and bearer/refreshtoken header values in `text` with `[redacted]`.
 * @param text any string about to leave the process (log line, error message)
 * @returns the same string with secrets removed
 */
export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join('[redacted]');
  }
  return out.replace(/(bearer\s+)[^\s"',]+/gi, '$1[redacted]').replace(/(refreshtoken["']?\s*[:=]\s*["']?)[^\s"',]+/gi, '$1[redacted]');
}

function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (value instanceof Error) {
    const copy = new Error(redact(value.message));
    copy.name = value.name;
    if (value.stack) copy.stack = redact(value.stack);
    return copy;
  }
  return value;
}

log.hooks.push((message) => ({ ...message, data: message.data.map(redactValue) }));
// Outside Electron electron-log looks for the app name in the nearest package.json of the working
// directory, which the CLI does not run in; name it here.
log.transports.file.setAppName('Letterdesk');
log.transports.console.level = process.env.LETTERDESK_LOG_CONSOLE === '1' ? 'info' : false;

/** The shared logger instance. In Electron, `index.ts` points its file transport at the app's log folder. */
export const logger = log;
