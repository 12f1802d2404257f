/**
 * Transport-independent call dispatch: validate the input against the contract, run the handler,
 * turn the outcome into a `Result`. Electron's ipcMain (electronTransport.ts) and the Playwright
 * harness (test/e2e/harness.ts) both call this, so the page sees the same behaviour through either.
 */
import { z } from 'zod';
import { calls, type CallName, type CallOutput, type Handlers } from '../../../shared/contract.ts';
import { LetterdeskError, toErrorPayload, type Result } from '../../../shared/errors.ts';

/** Largest accepted serialised input (characters); bigger inputs are refused before parsing. */
export const MAX_INPUT_CHARS = 256 * 1024;

/** Summarises zod issues as "path: message; …", for a message a person can act on. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'input'}: ${issue.message}`)
    .join('; ');
}

/** True when `name` is one of the contract's calls (own property, not inherited). */
export function isCallName(name: unknown): name is CallName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(calls, name);
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
      throw new LetterdeskError('VALIDATION', `Unknown call "${String(name).slice(0, 64)}".`);
    }
    let size = 0;
    try {
      size = JSON.stringify(rawInput ?? null)?.length ?? 0;
    } catch {
      throw new LetterdeskError('VALIDATION', `Input of ${name} is not plain data.`);
    }
    if (size > MAX_INPUT_CHARS) {
      throw new LetterdeskError('VALIDATION', `Input of ${name} is too large (${size} characters; the limit is ${MAX_INPUT_CHARS}).`);
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
    if (payload.code === 'INTERNAL') log(`call ${String(name)} failed`, error);
    return { ok: false, error: payload };
  }
}
