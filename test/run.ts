/**
 * `npm test`: every check the project has, in order, with one closing summary line.
 *
 *   1. type checks (main/preload/shared/test with Node types; renderer with DOM types + svelte-check)
 *   2. lint (including the folder = runtime import rules)
 *   3. vitest: unit and integration tests (real loopback HTTP, real SQLite, real keychain), a
 *      file per core at once
 *   4. electron-vite build (main, preload, renderer)
 *   5. Playwright in Chromium: the built renderer with the real handlers bound into the page; the
 *      specs that can share the cores in parallel workers, then the quiet ones alone
 *   6. Playwright `_electron`: only where an Electron binary is installed; otherwise says so
 *   7. `npm run bench -- --quick`, so the benchmark never rots (figures printed, not asserted)
 *
 * Steps 1, 2 and 4 run at the same time (the type checks in one lane, lint then the build in the
 * other: each is one process on one core); each one's output is printed whole when it ends. The
 * build is made once: the e2e run and the benchmark are told to use it.
 *
 * Options: `--only unit|e2e|electron|static` runs a subset; `--no-bench` skips step 7.
 * Exit status: 0 when everything passed, 1 otherwise.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { electronBinaryProblem, electronPackageDir } from '../electron/main/app/electronBinary.ts';
import { PARALLEL_PROJECT_NAMES, QUIET_PROJECT } from './e2e/playwright.config.ts';

const root = resolve(import.meta.dirname, '..');
const results = resolve(root, 'test-results');
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const runBench = !args.includes('--no-bench') && only === undefined;

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}
const total: Tally = { passed: 0, failed: 0, skipped: 0 };
const failures: string[] = [];
/** Failed tests by name with the first line of their error, repeated at the very end of the output. */
const failedTests: string[] = [];
/** Each step's title and seconds, repeated at the end: a log that keeps only its tail still shows where the time went. */
const stepTimes: string[] = [];
/** The longest end-to-end tests, `file > title` and seconds, for the same closing lines. */
const longTests: { name: string; seconds: number }[] = [];

/** The first non-empty line of a failure message, without terminal colour codes, at most 200 characters. */
function firstLine(message: string | undefined): string {
  const line = stripVTControlCharacters(message ?? '').split('\n').find((l) => l.trim() !== '') ?? '';
  return line.trim().slice(0, 200);
}

function step(title: string, command: string, commandArgs: string[], env: Record<string, string> = {}): boolean {
  console.log(`\n=== ${title}: ${command} ${commandArgs.join(' ')}`);
  const started = Date.now();
  // npm and npx are .cmd scripts on Windows, which only a shell can start.
  const result = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env }, shell: process.platform === 'win32' });
  const ok = result.status === 0;
  const seconds = (Date.now() - started) / 1000;
  console.log(`=== ${title}: ${ok ? 'ok' : `FAILED (exit ${result.status ?? result.signal})`} in ${seconds.toFixed(1)} s`);
  stepTimes.push(`${title} ${seconds.toFixed(1)} s`);
  if (!ok) failures.push(title);
  return ok;
}

/** A step for {@link lanes}: what {@link step} takes. */
interface StepSpec {
  title: string;
  command: string;
  args: string[];
}

/**
 * Runs `step` with its output (stdout and stderr, in the order written) held back and printed in
 * one piece, header to result line, when it ends, so steps running at the same time do not mix.
 * @returns whether it exited 0
 */
function bufferedStep({ title, command, args: commandArgs }: StepSpec): Promise<boolean> {
  const started = Date.now();
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    const child = spawn(command, commandArgs, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: process.stdout.isTTY ? { ...process.env, FORCE_COLOR: '1' } : process.env });
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const finish = (code: number | null, why: string | null) => {
      const ok = code === 0;
      console.log(`\n=== ${title}: ${command} ${commandArgs.join(' ')}`);
      process.stdout.write(Buffer.concat(chunks));
      const seconds = (Date.now() - started) / 1000;
      console.log(`=== ${title}: ${ok ? 'ok' : `FAILED (${why ?? `exit ${code}`})`} in ${seconds.toFixed(1)} s`);
      stepTimes.push(`${title} ${seconds.toFixed(1)} s`);
      if (!ok) failures.push(title);
      done(ok);
    };
    child.on('error', (error) => finish(null, error.message));
    child.on('close', (code, signal) => finish(code, signal));
  });
}

/**
 * Runs the lanes at the same time, the steps of each lane one after another.
 * @returns whether each step exited 0, by title
 */
async function lanes(...all: StepSpec[][]): Promise<Map<string, boolean>> {
  const results = new Map<string, boolean>();
  await Promise.all(
    all.map(async (lane) => {
      for (const spec of lane) results.set(spec.title, await bufferedStep(spec));
    }),
  );
  return results;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

interface VitestReport {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
  testResults?: {
    name?: string;
    message?: string;
    status?: string;
    assertionResults?: { fullName?: string; status?: string; failureMessages?: string[] }[];
  }[];
}

function addVitest(file: string): void {
  const report = readJson(file) as VitestReport | null;
  if (!report) return;
  total.passed += report.numPassedTests ?? 0;
  total.failed += report.numFailedTests ?? 0;
  total.skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const suite of report.testResults ?? []) {
    const where = (suite.name ?? '').replace(`${root}/`, '');
    const failed = (suite.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failed) failedTests.push(`${where} > ${test.fullName ?? '?'}: ${firstLine(test.failureMessages?.[0])}`);
    // A file that failed to load or whose hooks failed has no failed assertion to name.
    if (failed.length === 0 && suite.status === 'failed') failedTests.push(`${where}: ${firstLine(suite.message)}`);
  }
}

interface PlaywrightError {
  message?: string;
  location?: { file?: string; line?: number };
}

/**
 * A Playwright failure in one line: the error's first line, the locator it waited for, and the line
 * of the spec that failed, so a log that keeps only the summary still says which step it was.
 */
function playwrightFailure(error: PlaywrightError | undefined): string {
  const message = stripVTControlCharacters(error?.message ?? '');
  const locator = message.split('\n').find((l) => l.startsWith('Locator:'))?.trim();
  const where = error?.location?.line !== undefined ? `at line ${error.location.line}` : undefined;
  return [firstLine(message), locator, where].filter((part) => part !== undefined).join(' · ');
}

interface PlaywrightSuite {
  title?: string;
  file?: string;
  specs?: { title?: string; file?: string; line?: number; tests?: { status?: string; results?: { error?: PlaywrightError; duration?: number }[] }[] }[];
  suites?: PlaywrightSuite[];
}

function addPlaywright(file: string): void {
  const report = readJson(file) as { stats?: { expected?: number; unexpected?: number; flaky?: number; skipped?: number }; suites?: PlaywrightSuite[] } | null;
  if (!report?.stats) return;
  total.passed += (report.stats.expected ?? 0) + (report.stats.flaky ?? 0);
  total.failed += report.stats.unexpected ?? 0;
  total.skipped += report.stats.skipped ?? 0;
  const visit = (suite: PlaywrightSuite): void => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        const ms = (test.results ?? []).reduce((sum, result) => sum + (result.duration ?? 0), 0);
        longTests.push({ name: `${spec.file ?? suite.file ?? '?'} > ${spec.title ?? '?'}`, seconds: ms / 1000 });
        if (test.status !== 'unexpected') continue;
        const error = test.results?.map((result) => result.error).find((e) => e !== undefined);
        failedTests.push(`${spec.file ?? suite.file ?? '?'}:${spec.line ?? '?'} > ${spec.title ?? '?'}: ${playwrightFailure(error)}`);
      }
    }
    for (const child of suite.suites ?? []) visit(child);
  };
  for (const suite of report.suites ?? []) visit(suite);
}

// Every Node process of the run (test workers, the CLI and sync processes they start) keeps the code
// it compiled here, so the hundreds of processes the tests start compile each module once.
process.env.NODE_COMPILE_CACHE ??= resolve(root, 'node_modules/.cache/node-compile');
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });
const npx = 'npx';

const BUILD: StepSpec = { title: 'build (electron-vite)', command: npx, args: ['electron-vite', 'build'] };
let built = false;
if (only === undefined || only === 'static') {
  const typecheck: StepSpec = { title: 'typecheck', command: 'npm', args: ['run', '--silent', 'typecheck'] };
  const lint: StepSpec = { title: 'lint', command: 'npm', args: ['run', '--silent', 'lint'] };
  const done = await lanes([typecheck], only === undefined ? [lint, BUILD] : [lint]);
  built = done.get(BUILD.title) === true;
}
if (only === undefined || only === 'unit') {
  const file = resolve(results, 'vitest.json');
  step('unit and integration tests (vitest)', npx, ['vitest', 'run', '--config', 'test/vitest.config.ts', '--reporter=default', '--reporter=json', `--outputFile.json=${file}`]);
  addVitest(file);
}
if (only === undefined || only === 'e2e') {
  if (only === 'e2e') built = step(BUILD.title, BUILD.command, BUILD.args);
  // Two passes: every spec that can share the cores, in parallel workers; then the quiet ones,
  // which time the page's main thread, alone.
  const passes = [
    { title: 'end-to-end tests in Chromium (Playwright)', file: 'e2e.json', args: PARALLEL_PROJECT_NAMES.map((name) => `--project=${name}`) },
    { title: 'end-to-end tests in Chromium, one at a time (Playwright)', file: 'e2e-quiet.json', args: [`--project=${QUIET_PROJECT}`, '--workers=1'] },
  ];
  for (const pass of passes) {
    const file = resolve(results, pass.file);
    step(pass.title, npx, ['playwright', 'test', '-c', 'test/e2e/playwright.config.ts', '--reporter=list,json', ...pass.args], {
      PLAYWRIGHT_JSON_OUTPUT_NAME: file,
      ...(built ? { LETTERDESK_SKIP_BUILD: '1' } : {}),
    });
    addPlaywright(file);
  }
}
if (only === undefined || only === 'electron') {
  // Looked up as `npm start` does, without loading the electron package, which would try to download the binary.
  const problem = electronBinaryProblem(electronPackageDir());
  if (problem !== null) {
    console.log('\n=== Electron tests (Playwright _electron): NOT RUN — no Electron binary is installed here');
    console.log(`    ${problem.split('. ')[0]}. They run once \`node node_modules/electron/install.js\` has installed it (release CI).`);
  } else {
    const file = resolve(results, 'electron.json');
    step('Electron tests (Playwright _electron)', npx, ['playwright', 'test', '-c', 'test/electron/playwright.config.ts', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: file });
    addPlaywright(file);
  }
}
if (runBench) {
  // The build of step 4 is the one the benchmark would make again.
  step('benchmark, quick mode (figures only)', 'npm', ['run', '--silent', 'bench', '--', '--quick'], built ? { LETTERDESK_SKIP_BUILD: '1' } : {});
}

console.log('');
console.log(`Step times: ${stepTimes.join(' · ')}`);
const longest = longTests.sort((a, b) => b.seconds - a.seconds).slice(0, 5);
if (longest.length > 0) console.log(`Longest end-to-end tests: ${longest.map((t) => `${t.name.slice(0, 70)} ${t.seconds.toFixed(0)} s`).join(' · ')}`);
if (failures.length > 0) console.log(`Failed steps: ${failures.join(', ')}`);
for (const test of failedTests) console.log(`Failed test: ${test}`);
console.log(`tests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(failures.length === 0 && total.failed === 0 ? 0 : 1);
