#!/usr/bin/env node
// Launcher for `npm link` / a global install: runs the TypeScript entry with the current Node,
// which must be ≥ 22.12 (type stripping; on 22.x it is enabled with --experimental-strip-types).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(`letterdesk: Node ${process.versions.node} is too old; install Node 22.12 or newer (24 recommended).\n`);
  process.exit(1);
}
const entry = join(dirname(fileURLToPath(import.meta.url)), 'index.ts');
// Node 23.6+ strips types by default; 22.12–23.5 need the flag.
const flags = major < 23 || (major === 23 && minor < 6) ? ['--experimental-strip-types', '--no-warnings'] : [];
const child = spawnSync(process.execPath, [...flags, entry, ...process.argv.slice(2)], { stdio: 'inherit' });
if (child.signal) process.kill(process.pid, child.signal);
process.exit(child.status ?? 1);
