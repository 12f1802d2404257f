/**
 * The release workflow (.github/workflows/release.yml) is checked here, where it cannot run: the
 * GitHub Actions workflow schema (action-validator, offline, WebAssembly) must accept it and refuse
 * a broken copy, and the jobs must do what README "Release CI" says: three operating systems, the
 * pinned Node and npm, the Electron binary installed, every test under a virtual display and a
 * Secret Service on Linux, the installers built, the packaged app smoke-tested and uploaded,
 * signing only when its secrets exist.
 */
import { validateWorkflow, type ValidationError } from '@action-validator/core';
import { load } from 'js-yaml';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const source = readFileSync(join(root, '.github/workflows/release.yml'), 'utf8');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  'runs-on': string;
  env?: Record<string, string>;
  strategy?: { matrix?: { include?: { os: string }[] } };
  steps: Step[];
}
const workflow = load(source) as { jobs: Record<string, Job> };
const job = workflow.jobs.build!;
const steps = job.steps;

/** The validator's errors in one line each, nested states flattened, for a readable failure. */
function problems(errors: ValidationError[]): string[] {
  return errors.flatMap((e) => [`${'path' in e ? e.path : ''} ${e.title}${e.detail ? `: ${e.detail}` : ''}`, ...('states' in e ? (e.states ?? []).flatMap((s) => problems(s.errors)) : [])]);
}

/** The one step whose name matches, or a failure naming what is missing. */
function step(name: RegExp): Step {
  const found = steps.filter((s) => name.test(s.name ?? ''));
  expect(found.map((s) => s.name), `one step named ${name}`).toHaveLength(1);
  return found[0]!;
}

describe('release.yml against the GitHub Actions workflow schema', () => {
  it('is a valid workflow', () => {
    const result = validateWorkflow(source);
    expect(result.actionType).toBe('workflow');
    expect(problems(result.errors)).toEqual([]);
  });

  it('the validator refuses a job with an unknown key, a step without uses or run, and broken YAML', () => {
    const unknownKey = source.replace('    timeout-minutes: 90\n', '    timeout-minutes: 90\n    runs_on: ubuntu-24.04\n');
    expect(unknownKey).not.toBe(source);
    expect(problems(validateWorkflow(unknownKey).errors).join('\n')).toMatch(/Additional property 'runs_on' is not allowed/);
    const emptyStep = source.replace('      - name: Check out\n        uses: actions/checkout@v4\n', '      - name: Check out\n');
    expect(emptyStep).not.toBe(source);
    expect(validateWorkflow(emptyStep).errors.length).toBeGreaterThan(0);
    expect(validateWorkflow(`${source}\n  bad: [unclosed\n`).errors.length).toBeGreaterThan(0);
  });
});

describe('what the release jobs do', () => {
  it('runs on Windows, macOS and Linux runners, each to the end', () => {
    const oses = (job.strategy?.matrix?.include ?? []).map((entry) => entry.os);
    expect(oses.map((os) => os.split('-')[0]).sort()).toEqual(['macos', 'ubuntu', 'windows']);
    // Pinned images, not -latest (which moves under the workflow).
    for (const os of oses) expect(os).toMatch(/-\d+(\.\d+)?$/);
    expect(job['runs-on']).toBe('${{ matrix.os }}');
    expect(source).toMatch(/fail-fast: false/);
  });

  it('uses an exact Node of the major in .nvmrc and an exact npm, and checks the npm it got', () => {
    const nvmrc = readFileSync(join(root, '.nvmrc'), 'utf8').trim();
    expect(job.env?.NODE_VERSION).toMatch(new RegExp(`^${nvmrc}\\.\\d+\\.\\d+$`));
    expect(job.env?.NPM_VERSION).toMatch(/^\d+\.\d+\.\d+$/);
    expect(step(/^Set up Node$/).with?.['node-version']).toBe('${{ env.NODE_VERSION }}');
    expect(step(/^Pin npm$/).run).toMatch(/npm install -g "npm@\$\{NPM_VERSION\}"[\s\S]*test "\$\(npm --version\)" = "\$\{NPM_VERSION\}"/);
  });

  it('pins every action to a major version at least', () => {
    const uses = steps.map((s) => s.uses).filter((u): u is string => u !== undefined);
    expect(uses).toEqual(expect.arrayContaining(['actions/checkout@v4', 'actions/setup-node@v4', 'actions/upload-artifact@v4']));
    for (const action of uses) expect(action).toMatch(/^[\w.-]+\/[\w.-]+@(v\d+(\.\d+){0,2}|[0-9a-f]{40})$/);
  });

  it('installs with npm ci, then the binary of the installed electron package, then runs npm test', () => {
    const names = steps.map((s) => s.name ?? '');
    const at = (name: RegExp) => names.findIndex((n) => name.test(n));
    expect(step(/^Install \(npm ci\)$/).run).toMatch(/^npm ci\b/);
    // electron has no install script: its install.js fetches the binary of the version installed.
    const electron = step(/^Install the Electron binary$/).run ?? '';
    expect(electron).toMatch(/node node_modules\/electron\/install\.js/);
    expect(electron).toMatch(/node electron\/main\/app\/electronBinary\.ts/);
    expect(at(/^Install \(npm ci\)$/)).toBeLessThan(at(/^Install the Electron binary$/));
    expect(at(/^Install the Electron binary$/)).toBeLessThan(at(/^Test \(Linux/));
    expect(step(/^Test \(Linux/).run).toMatch(/npm test/);
    expect(step(/^Test \(macOS, Windows\)$/).run).toBe('npm test');
  });

  it('gives the end-to-end tests a Chromium through CHROMIUM_PATH, before npm test', () => {
    const chromium = step(/^Chromium for the end-to-end tests$/);
    expect(chromium.run).toMatch(/npx playwright install --with-deps chromium/);
    expect(chromium.run).toMatch(/'CHROMIUM_PATH=' \+ chromium\.executablePath\(\)[^\n]*>> "\$GITHUB_ENV"/);
    expect(steps.indexOf(chromium)).toBeLessThan(steps.indexOf(step(/^Test \(Linux/)));
  });

  it('tests on Linux under xvfb-run, in a D-Bus session with an unlocked keyring', () => {
    const linux = step(/^Test \(Linux/);
    expect(linux.if).toBe("runner.os == 'Linux'");
    expect(linux.run).toMatch(/xvfb-run[\s\S]*dbus-run-session -- sh -c 'echo -n [^ ]+ \| gnome-keyring-daemon --unlock --components=secrets >\/dev\/null; npm test'/);
    expect(step(/^Linux packages/).run).toMatch(/apt-get install[^\n]*gnome-keyring[^\n]*dbus[^\n]*libsecret-1-dev[^\n]*xvfb/);
    expect(step(/^Test \(macOS, Windows\)$/).if).toBe("runner.os != 'Linux'");
  });

  it('builds the installers with npm run dist and never publishes from the build', () => {
    const builds = steps.filter((s) => /^Build the installers/.test(s.name ?? ''));
    expect(builds).toHaveLength(2);
    for (const build of builds) expect(build.run).toBe('npm run dist -- --publish never');
  });

  it('smoke-tests the packaged app from the unpacked output, on a virtual display on Linux', () => {
    expect(step(/^Smoke test the packaged app \(Linux/).run).toMatch(/xvfb-run[\s\S]*dbus-run-session -- sh -c '[^']*gnome-keyring-daemon --unlock[^']*; node test\/electron\/smoke\.ts'/);
    expect(step(/^Smoke test the packaged app \(macOS, Windows\)$/).run).toBe('node test/electron/smoke.ts');
    const names = steps.map((s) => s.name ?? '');
    expect(names.findIndex((n) => n.startsWith('Smoke test'))).toBeGreaterThan(names.findIndex((n) => n.startsWith('Build the installers')));
  });

  it('uploads the installers of every platform as artifacts, failing when there are none', () => {
    const upload = step(/^Upload the installers$/);
    expect(upload.uses).toBe('actions/upload-artifact@v4');
    expect(upload.with?.['if-no-files-found']).toBe('error');
    const paths = String(upload.with?.path ?? '');
    for (const installer of ['dist/*.AppImage', 'dist/*.deb', 'dist/*.dmg', 'dist/*.exe']) expect(paths).toContain(installer);
  });

  it('maps the signing secrets into the job and signs only when they are there', () => {
    const secrets = ['CSC_LINK', 'CSC_KEY_PASSWORD', 'WIN_CSC_LINK', 'WIN_CSC_KEY_PASSWORD', 'APPLE_ID', 'APPLE_APP_SPECIFIC_PASSWORD', 'APPLE_TEAM_ID'];
    for (const name of secrets) expect(job.env?.[name], name).toBe(`\${{ secrets.${name} }}`);
    // Secrets appear nowhere else: steps read them from the job's environment.
    expect(source.match(/secrets\./g)).toHaveLength(secrets.length);
    const unsigned = step(/^Build the installers \(unsigned\)$/);
    expect(unsigned.if).toBe("env.CSC_LINK == '' && env.WIN_CSC_LINK == ''");
    expect(unsigned.env?.CSC_IDENTITY_AUTO_DISCOVERY).toBe('false');
    expect(step(/^Build the installers \(signed/).if).toBe("env.CSC_LINK != '' || env.WIN_CSC_LINK != ''");
    expect(step(/^Check the macOS signature and notarisation$/).if).toMatch(/env\.CSC_LINK != '' && env\.APPLE_ID != ''/);
    expect(step(/^Check the Windows signature$/).if).toMatch(/env\.WIN_CSC_LINK != ''/);
  });

  it('grants the token read access only', () => {
    expect(source).toMatch(/^permissions:\n {2}contents: read$/m);
  });
});
