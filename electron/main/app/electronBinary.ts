/**
 * Before `npm start` / `npm run dev`: says what is missing when the Electron binary is not
 * installed (the `electron` package has no install script, so `npm ci` leaves its binary out until
 * `node node_modules/electron/install.js` fetches it; or that download failed), and how to get it,
 * instead of electron-vite's bare "Electron uninstall". Run as a script it exits 1 with that
 * message, or 0 when the binary is there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * What is wrong with the Electron binary electron-vite would start, or null when it is there.
 * Follows electron-vite's own lookup: ELECTRON_EXEC_PATH, else `path.txt` of the `electron`
 * package naming a file under its `dist/`.
 * @param electronPackageDir the folder of the installed `electron` package, or null when it is not installed
 * @param env the environment (ELECTRON_EXEC_PATH)
 * @returns a message naming what is missing and the commands that fix it
 */
export function electronBinaryProblem(electronPackageDir: string | null, env: NodeJS.ProcessEnv = process.env): string | null {
  const fix =
    'Install it with a network that reaches the Electron download (or set ELECTRON_MIRROR / HTTPS_PROXY): ' +
    '`node node_modules/electron/install.js` (the binary of the installed electron version), then `npm start`. ' +
    'The tests, the command line and the sample API work without it (README, Troubleshooting).';
  const exec = env.ELECTRON_EXEC_PATH;
  if (exec) return existsSync(exec) ? null : `ELECTRON_EXEC_PATH names ${exec}, which does not exist. Unset it or point it at an Electron executable.`;
  if (electronPackageDir === null) return `The electron package is not installed. Run \`npm ci\` first. ${fix}`;
  const pathFile = join(electronPackageDir, 'path.txt');
  const executable = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  if (executable === '') return `The Electron binary was never downloaded (${pathFile} is missing: npm ci does not fetch it, or its download failed). ${fix}`;
  const binary = join(electronPackageDir, 'dist', executable);
  if (!existsSync(binary)) return `The Electron binary ${binary} is missing (its download was interrupted or removed). ${fix}`;
  return null;
}

/** The folder of the `electron` package this project resolves, or null. */
export function electronPackageDir(): string | null {
  try {
    return dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return null;
  }
}

if (import.meta.main) {
  const problem = electronBinaryProblem(electronPackageDir());
  if (problem) {
    console.error(`Letterdesk cannot start: ${problem}`);
    process.exit(1);
  }
}
