/**
 * Transport-independent call dispatch: validate the input against the contract, run the handler,
 * turn the outcome into a `Result`. Electron's ipcMain (electronTransport.ts) and the Playwright
 * harness (test/e2e/harness.ts) both call this, so the page sees the same behaviour through either.
 */
import { calls, MAX_CHART_IMAGE_CHARS, type CallName, type CallOutput, type Handlers } from '../../../shared/contract.ts';
import { LetterdeskError, toErrorPayload, type Result } from '../../../shared/errors.ts';
import { clip, describeIssues } from '../../../shared/zodIssues.ts';

/** What every transport answers a call that did not come from the app's own top-level page. */
export const FORBIDDEN_SENDER_RESULT = {
  ok: false,
  error: { code: 'FORBIDDEN_SENDER', message: 'This request did not come from the Letterdesk window.' },
} as const satisfies Result<never>;

/** Largest accepted serialised input (characters); bigger inputs are refused before parsing. */
export const MAX_INPUT_CHARS = 256 * 1024;

/** A printable form of an untrusted call name (it may be any value, even one without toString). */
function nameForMessage(name: unknown): string {
  return typeof name === 'string' ? clip(name, 64) : `(${typeof name})`;
}

/** Deepest nesting an input may have; no contract input comes close. */
export const MAX_INPUT_DEPTH = 32;

/**
 * True when `value` is plain data: null, undefined, booleans, numbers, strings, arrays and objects
 * whose prototype is Object.prototype or null, nested at most {@link MAX_INPUT_DEPTH} deep. Maps,
 * Sets, Dates, typed arrays, class instances, functions, symbols and BigInts (which Electron's
 * structured clone or a test harness can deliver) are refused, so `z.object({})` never accepts them.
 */
export function isPlainData(value: unknown, depth = 0): boolean {
  if (value === null || value === undefined) return true;
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return true;
  if (type !== 'object' || depth >= MAX_INPUT_DEPTH) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (Array.isArray(value)) return proto === Array.prototype && value.every((item) => isPlainData(item, depth + 1));
  if (proto !== Object.prototype && proto !== null) return false;
  return Object.values(value as Record<string, unknown>).every((item) => isPlainData(item, depth + 1));
}

/** True when `name` is one of the contract's calls (own property, not inherited). */
export function isCallName(name: unknown): name is CallName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(calls, name);
}

/**
 * The most characters a call's input may have as JSON: a chart image is a file's worth of text
 * ({@link MAX_CHART_IMAGE_CHARS} and its other fields); every other input is a few fields.
 */
export function maxInputChars(name: CallName): number {
  return name === 'saveChartImage' ? MAX_CHART_IMAGE_CHARS + 1024 : MAX_INPUT_CHARS;
}

/**
 * Runs one call.
 * @param handlers the handler table
 * @param name the call name (unknown names give a VALIDATION error)
 * @param rawInput the untrusted input as it arrived
 * @param log receives unexpected (INTERNAL) errors with their stack
 * @returns `{ ok: true, value }` or `{ ok: false, error: { code, message } }`; never rejects
 */
export async function dispatchCall(
  handlers: Handlers,
  name: unknown,
  rawInput: unknown,
  log: (message: string, error: unknown) => void = () => {},
): Promise<Result<CallOutput<CallName>>> {
  try {
    if (!isCallName(name)) {
      throw new LetterdeskError('VALIDATION', `Unknown call "${nameForMessage(name)}".`);
    }
    let size = 0;
    try {
      size = JSON.stringify(rawInput ?? null)?.length ?? 0;
    } catch {
      throw new LetterdeskError('VALIDATION', `Input of ${name} is not plain data.`);
    }
    const limit = maxInputChars(name);
    if (size > limit) {
      throw new LetterdeskError('VALIDATION', `Input of ${name} is too large (${size} characters; the limit is ${limit}).`);
    }
    if (!isPlainData(rawInput)) {
      throw new LetterdeskError('VALIDATION', `Input of ${name} is not plain data (only objects, arrays, strings, numbers, booleans and null, nested at most ${MAX_INPUT_DEPTH} deep).`);
    }
    const parsed = calls[name].input.safeParse(rawInput);
    if (!parsed.success) {
      throw new LetterdeskError('VALIDATION', `Invalid input for ${name}: ${describeIssues(parsed.error)}.`);
    }
    const handler = handlers[name] as (input: unknown) => Promise<CallOutput<CallName>>;
    const value = await handler(parsed.data);
    return { ok: true, value };
  } catch (error) {
    const payload = toErrorPayload(error);
    if (payload.code === 'INTERNAL') log(`call ${nameForMessage(name)} failed`, error);
    return { ok: false, error: payload };
  }
}
