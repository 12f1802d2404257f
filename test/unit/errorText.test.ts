/**
 * Error messages as a person reads them: composed from an error's message, its advice and the
 * words around them (shared/errors.ts `joinSentences`, `toErrorPayload`; renderer/src/lib/errors.ts
 * `errorText`), each sentence said once and each ending in one full stop.
 */
import { describe, expect, it } from 'vitest';
import { joinSentences, LetterdeskError, toErrorPayload } from '../../shared/errors.ts';
import { errorText } from '../../renderer/src/lib/errors.ts';

describe('joinSentences', () => {
  it('joins the parts as sentences, each with its full stop', () => {
    expect(joinSentences('Contacts not downloaded.', 'GET /contacts failed: could not reach the host')).toBe('Contacts not downloaded. GET /contacts failed: could not reach the host.');
    expect(joinSentences('Saved!', 'Really?')).toBe('Saved! Really?');
    expect(joinSentences(null, undefined, '  ', 'Only this')).toBe('Only this.');
    expect(joinSentences()).toBe('');
  });

  it('says a sentence an earlier part said only once', () => {
    expect(joinSentences('The worker failed: disk full. Details are in the log file.', 'Details are in the log file.')).toBe('The worker failed: disk full. Details are in the log file.');
    // Case, spacing and the closing stop do not make a sentence new.
    expect(joinSentences('Try again later.', 'try  again later')).toBe('Try again later.');
    // A repeated sentence inside one part goes too; different sentences stay in their order.
    expect(joinSentences('Check the URL. Check the URL. Then test again.')).toBe('Check the URL. Then test again.');
  });

  it('never doubles a full stop', () => {
    expect(joinSentences('The file is locked..', 'Close it first.')).toBe('The file is locked. Close it first.');
  });

  it('keeps stops that do not end a sentence', () => {
    expect(joinSentences('See docs/credentials.md for the fix', 'Version 1.2.3 is needed.')).toBe('See docs/credentials.md for the fix. Version 1.2.3 is needed.');
  });
});

describe('errorText', () => {
  it('adds the advice of the code once, not when the message already gives it', () => {
    expect(errorText({ code: 'INTERNAL', message: 'Unexpected error: boom. Details are in the log file.' })).toBe('Unexpected error: boom. Details are in the log file.');
    expect(errorText({ code: 'TIMEOUT', message: 'GET /orders/ failed: no complete answer within 30000 ms' })).toBe(
      'GET /orders/ failed: no complete answer within 30000 ms. The service is slow to answer; try again in a moment.',
    );
    expect(errorText({ code: 'VALIDATION', message: 'Give the profile a name.' })).toBe('Give the profile a name.');
  });

  it('says an unexpected error’s message once when it already points to the log', () => {
    const payload = toErrorPayload(new Error('The worker stopped. Details are in the log file.'));
    expect(payload).toEqual({ code: 'INTERNAL', message: 'Unexpected error: The worker stopped. Details are in the log file.' });
    expect(errorText(payload)).toBe('Unexpected error: The worker stopped. Details are in the log file.');
    expect(toErrorPayload(new Error('disk full.')).message).toBe('Unexpected error: disk full. Details are in the log file.');
    expect(toErrorPayload(new LetterdeskError('BUSY', 'A sync is running.')).message).toBe('A sync is running.');
  });
});
