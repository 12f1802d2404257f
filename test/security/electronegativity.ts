/**
 * Runs Doyensec's Electronegativity over a source folder and writes its SARIF report.
 * Usage: node test/security/electronegativity.ts <input dir> <output.sarif>
 *
 * Electronegativity looks up Electron releases and translations online; this machine has no such
 * network, and the library's late retry timers throw after the scan has finished. The scan result
 * is complete when `run` resolves, so the process exits right then.
 */
import run from '@doyensec/electronegativity';
import { readFileSync } from 'node:fs';

// Its online look-ups fail here (no network) and their retry timers throw later, possibly while the
// scan still runs under load. Those errors come from its HTTP stack only; anything else still fails.
process.on('uncaughtException', (error) => {
  if (/node_modules[\\/](got|p-cancelable)[\\/]/.test(error.stack ?? '')) return;
  console.error(error);
  process.exit(1);
});

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: electronegativity.ts <input dir> <output.sarif>');
  process.exit(2);
}
const result = (await run({
  input,
  output,
  isSarif: true,
  isRelative: true,
  customScan: [],
  electronVersionOverride: '45.0.0',
  parserPlugins: [],
})) as { errors: unknown[]; issues: unknown[] };
// The report is written with an async fs.writeFile that run() does not await: wait for it.
for (let i = 0; i < 100; i++) {
  try {
    JSON.parse(readFileSync(output, 'utf8'));
    break;
  } catch {
    await new Promise((ok) => setTimeout(ok, 50));
  }
}
console.log(`electronegativity: ${result.issues.length} findings, ${result.errors.length} parse errors in ${input}`);
process.exit(0);
