/**
 * A detail's read started ahead by the click that opens it (renderer/src/lib/readAhead.ts): the
 * panel takes that read once; an untaken read is dropped after a while, so a later read of the
 * same record (new data published) is a new call; another record's read is never handed over.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { READ_AHEAD_TTL_MS, ReadAhead } from '../../renderer/src/lib/readAhead.ts';

/** A read that counts its calls and answers with the record's id and the call's number. */
function counting(): { read: (id: string) => () => Promise<string>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    read: (id) => () => {
      calls.push(id);
      return Promise.resolve(`${id}#${calls.length}`);
    },
  };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('ReadAhead', () => {
  it('hands the read started ahead to the panel once, then reads anew', async () => {
    const reads = new ReadAhead<string>();
    const { read, calls } = counting();
    reads.start('c1', read('c1'));
    expect(calls).toEqual(['c1']);
    await expect(reads.take('c1', read('c1'))).resolves.toBe('c1#1');
    expect(calls).toEqual(['c1']);
    await expect(reads.take('c1', read('c1'))).resolves.toBe('c1#2');
    expect(calls).toEqual(['c1', 'c1']);
  });

  it("never hands over another record's read", async () => {
    const reads = new ReadAhead<string>();
    const { read, calls } = counting();
    reads.start('c1', read('c1'));
    await expect(reads.take('c2', read('c2'))).resolves.toBe('c2#2');
    expect(calls).toEqual(['c1', 'c2']);
  });

  it('keeps only the latest read started ahead', async () => {
    const reads = new ReadAhead<string>();
    const { read, calls } = counting();
    reads.start('c1', read('c1'));
    reads.start('c2', read('c2'));
    await expect(reads.take('c1', read('c1'))).resolves.toBe('c1#3');
    await expect(reads.take('c2', read('c2'))).resolves.toBe('c2#2');
    expect(calls).toEqual(['c1', 'c2', 'c1']);
  });

  it('drops a read nobody took in time, so a later read of the same record is a new one', async () => {
    const reads = new ReadAhead<string>();
    const { read, calls } = counting();
    reads.start('c1', read('c1'));
    vi.advanceTimersByTime(READ_AHEAD_TTL_MS - 1);
    reads.start('c3', read('c3'));
    vi.advanceTimersByTime(READ_AHEAD_TTL_MS);
    await expect(reads.take('c3', read('c3'))).resolves.toBe('c3#3');
    expect(calls).toEqual(['c1', 'c3', 'c3']);
  });

  it("hands over a failed read's failure, and a failure nobody takes goes unreported", async () => {
    const reads = new ReadAhead<string>();
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      reads.start('gone', () => Promise.reject(new Error('not cached')));
      await expect(reads.take('gone', () => Promise.resolve('read again'))).rejects.toThrow('not cached');
      reads.start('gone', () => Promise.reject(new Error('not cached')));
      vi.advanceTimersByTime(READ_AHEAD_TTL_MS);
      await vi.waitFor(() => Promise.resolve());
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});
