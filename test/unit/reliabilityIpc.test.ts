/**
 * Requirement: "Hostile or unexpected input": every IPC call of shared/contract.ts fed generated
 * malformed, oversized and wrong-typed inputs through the real `dispatchCall`, with a recording
 * handler table (the real table over a real core: test/integration/reliabilityIpcCore.test.ts).
 *
 * What each property proves: the answer is `{ ok: false, error: { code: 'VALIDATION' } }` every
 * time, with a bounded message; no handler ever runs for an invalid input; no unhandled rejection
 * fires; `Object.prototype` is never polluted.
 *
 * Inputs come from fast-check. The seed is printed at the start; replay a failure with
 * LETTERDESK_FUZZ_SEED=<seed> (LETTERDESK_FUZZ_RUNS=<n> for more runs per property).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CALL_NAMES, calls, type Handlers } from '../../shared/contract.ts';
import { dispatchCall, maxInputChars } from '../../electron/main/ipc/dispatch.ts';
import { anyValue, describeInput, expectNoPollution, expectValidationError, isInvalid, malformedFor, notPlainData, RUNS, SEED, VALID, watchProcess } from '../reliability/fuzz.ts';

describe('IPC dispatch against generated hostile inputs (recording handler table)', () => {
  const reached: string[] = [];
  const recording = new Proxy({} as Handlers, {
    get: (_t, name) => async () => {
      reached.push(String(name));
      return null;
    },
  });

  it('the valid base inputs are valid (so the mutations below start from the contract, not from noise)', () => {
    for (const name of CALL_NAMES) expect(calls[name].input.safeParse(VALID[name]).success, name).toBe(true);
    expect(Object.keys(VALID).sort()).toEqual([...CALL_NAMES].sort());
  });

  for (const name of CALL_NAMES) {
    it(`${name}: malformed, wrong-typed, deep and oversized inputs give VALIDATION and never reach the handler`, async () => {
      const watch = watchProcess();
      try {
        await fc.assert(
          fc.asyncProperty(malformedFor(name), async (input) => {
            fc.pre(isInvalid(name, input));
            const before = reached.length;
            const result = await dispatchCall(recording, name, input);
            expectValidationError(result, `${name}(${describeInput(input)})`);
            expect(reached.length, 'handler ran for an invalid input').toBe(before);
          }),
          { seed: SEED, numRuns: RUNS, verbose: 1 },
        );
        await new Promise((ok) => setImmediate(ok));
        expect(watch.unhandled).toEqual([]);
        expectNoPollution();
      } finally {
        watch.stop();
      }
    });
  }

  it('inputs that are not plain data (cycles, BigInt, throwing getters, Map, Date, class instances, arrays, typed arrays) give VALIDATION for every call', async () => {
    const watch = watchProcess();
    try {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...CALL_NAMES), fc.nat(), async (name, n) => {
          const input = fc.sample(notPlainData(name), { seed: SEED + n, numRuns: 1 })[0];
          const before = reached.length;
          const result = await dispatchCall(recording, name, input);
          expectValidationError(result, `${name}(${Object.prototype.toString.call(input)} ${describeInput(input)})`);
          expect(reached.length).toBe(before);
        }),
        { seed: SEED, numRuns: Math.max(RUNS * 3, CALL_NAMES.length * 9), verbose: 1 },
      );
      expect(watch.unhandled).toEqual([]);
    } finally {
      watch.stop();
    }
  });

  it('an input just over the size limit is refused before parsing, for every call', async () => {
    const start = reached.length;
    for (const name of CALL_NAMES) {
      const base = VALID[name] as Record<string, unknown>;
      const huge = { ...base, pad: 'x'.repeat(maxInputChars(name)) };
      const result = await dispatchCall(recording, name, huge);
      expectValidationError(result, name);
      expect(result.ok ? '' : result.error.message).toMatch(/too large/);
    }
    expect(reached.slice(start)).toEqual([]);
  });

  it('unknown and prototype-named call names give VALIDATION', async () => {
    const start = reached.length;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', ''), fc.string(), anyValue), async (name) => {
        fc.pre(!(CALL_NAMES as readonly unknown[]).includes(name));
        const result = await dispatchCall(recording, name, {});
        expectValidationError(result, `name ${describeInput(name)}`);
      }),
      { seed: SEED, numRuns: RUNS, verbose: 1 },
    );
    expect(reached.slice(start)).toEqual([]);
  });
});

