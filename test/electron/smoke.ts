/**
 * `node test/electron/smoke.ts`, after `npm run dist`: finds the packaged app in electron-builder's
 * unpacked output (dist/linux-unpacked, dist/mac…/Letterdesk.app, dist/win-unpacked), copies it
 * into a temporary folder, lets that copy accept the Node inspector Playwright's `_electron`
 * drives the main process through (the installers ship with the fuse that allows it off:
 * electron-builder.yml `enableNodeCliInspectArguments`), and runs packaged.spec.ts against it. The
 * copy keeps everything else as built: the asar archive, its integrity check, the native modules.
 * Exits with Playwright's status; 2 when there is no packaged app.
 */
import { flipFuses, FuseV1Options, FuseVersion, getCurrentFuseWire } from '@electron/fuses';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

/** The environment variable naming a packaged app's executable for packaged.spec.ts. */
export const PACKAGED_APP_ENV = 'LETTERDESK_APP_EXECUTABLE';

/** A fuse's "on" state in the binary's fuse wire (the byte '1'). */
const FUSE_ENABLED = 0x31;

/** Where a packaged app lives in electron-builder's output. */
export interface PackagedApp {
  /** The folder to copy: `<platform>-unpacked`, or the `.app` bundle on macOS. */
  bundle: string;
  /** The executable inside {@link bundle}, relative to it. */
  executable: string;
}

/**
 * Finds the unpacked app of `platform` in electron-builder's output folder.
 * @param distDir electron-builder.yml `directories.output` (dist)
 * @param platform `process.platform`
 * @param productName electron-builder.yml `productName`; Linux executables use the package name
 * @param packageName package.json `name` (the Linux executable's name)
 * @throws Error naming the folder looked in and the command that makes it, when there is none
 */
export function findPackagedApp(distDir: string, platform: NodeJS.Platform, productName: string, packageName: string): PackagedApp {
  const folders = existsSync(distDir) ? readdirSync(distDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name) : [];
  const candidates: PackagedApp[] =
    platform === 'darwin'
      ? folders.filter((f) => /^mac(-universal|-arm64|-x64)?$/.test(f)).map((f) => ({ bundle: join(distDir, f, `${productName}.app`), executable: join('Contents', 'MacOS', productName) }))
      : platform === 'win32'
        ? folders.filter((f) => /^win(-arm64|-ia32)?-unpacked$/.test(f)).map((f) => ({ bundle: join(distDir, f), executable: `${productName}.exe` }))
        : folders.filter((f) => /^linux(-arm64|-armv7l)?-unpacked$/.test(f)).map((f) => ({ bundle: join(distDir, f), executable: packageName }));
  const found = candidates.find((c) => existsSync(join(c.bundle, c.executable)));
  if (found === undefined) throw new Error(`No packaged ${productName} for ${platform} in ${distDir} (looked in: ${folders.join(', ') || 'nothing there'}). Run \`npm run dist\` first.`);
  return found;
}

/**
 * Copies the app into a new temporary folder and turns on, in the copy only, the fuse that lets
 * the executable take `--inspect` (re-signing ad hoc on macOS, where changing the binary voids its
 * signature).
 * @returns the copied executable's absolute path
 */
export async function prepareSmokeCopy(app: PackagedApp, platform: NodeJS.Platform): Promise<string> {
  const into = join(mkdtempSync(join(tmpdir(), 'letterdesk-smoke-')), relative(resolve(app.bundle, '..'), app.bundle));
  cpSync(app.bundle, into, { recursive: true, verbatimSymlinks: true });
  const fuseTarget = platform === 'darwin' ? into : join(into, app.executable);
  await flipFuses(fuseTarget, { version: FuseVersion.V1, resetAdHocDarwinSignature: platform === 'darwin', [FuseV1Options.EnableNodeCliInspectArguments]: true });
  const wire = await getCurrentFuseWire(fuseTarget);
  if (wire[FuseV1Options.EnableNodeCliInspectArguments] !== FUSE_ENABLED) throw new Error(`Could not turn on the inspector fuse of ${fuseTarget}.`);
  return join(into, app.executable);
}

if (import.meta.main) {
  const root = resolve(import.meta.dirname, '../..');
  let app: PackagedApp;
  try {
    app = findPackagedApp(join(root, 'dist'), process.platform, 'Letterdesk', 'letterdesk');
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  const executable = await prepareSmokeCopy(app, process.platform);
  console.log(`smoke test of ${app.bundle}, copied to ${executable}`);
  const result = spawnSync('npx', ['playwright', 'test', '-c', 'test/electron/playwright.config.ts', 'packaged.spec.ts'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, [PACKAGED_APP_ENV]: executable },
    // npx is a .cmd script on Windows, which only a shell can start.
    shell: process.platform === 'win32',
  });
  process.exit(result.status ?? 1);
}
