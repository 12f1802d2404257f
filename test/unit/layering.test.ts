/**
 * The folder = runtime rules (STYLE.md): the lint configuration refuses imports that cross a
 * runtime boundary. Checked by linting small probes as if they lived in each folder.
 */
import { ESLint } from 'eslint';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root, overrideConfigFile: resolve(root, 'test/eslint.config.js') });

async function restricted(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: resolve(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-globals' || m.ruleId === 'no-restricted-syntax' || m.ruleId === 'no-restricted-properties').map((m) => m.message);
}

describe('import rules per folder', () => {
  it('shared/ imports no electron, no node:* and uses no DOM', async () => {
    expect(await restricted('shared/probe.ts', "import { app } from 'electron';\nexport const a = app;")).toHaveLength(1);
    expect(await restricted('shared/probe.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;")).toHaveLength(1);
    expect(await restricted('shared/probe.ts', "import { join } from 'path';\nexport const a = join;")).toHaveLength(1);
    expect(await restricted('shared/probe.ts', 'export const a = document.title;')).toHaveLength(1);
    expect(await restricted('shared/probe.ts', "import { z } from 'zod';\nimport { calls } from './contract.ts';\nexport const a = [z, calls];")).toEqual([]);
  });
  it('renderer/ imports no electron and no node:*', async () => {
    expect(await restricted('renderer/src/probe.ts', "import { ipcRenderer } from 'electron';\nexport const a = ipcRenderer;")).toHaveLength(1);
    expect(await restricted('renderer/src/probe.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;")).toHaveLength(1);
    expect(await restricted('renderer/src/probe.ts', "import { calls } from '../../shared/contract.ts';\nexport const a = [calls, document.title];")).toEqual([]);
  });
  it('renderer/src/components/ calls main only through state/: no lib/api.ts, no window.letterdesk', async () => {
    expect(await restricted('renderer/src/components/Probe.svelte', "<script lang=\"ts\">\n  import { call } from '../lib/api.ts';\n  void call('cancelSync', {});\n</script>\n")).toHaveLength(1);
    expect(await restricted('renderer/src/components/list/probe.ts', "import { call } from '../../lib/api.ts';\nexport const a = call;")).toHaveLength(1);
    expect(await restricted('renderer/src/components/probe.ts', 'export const a = window.letterdesk;')).toHaveLength(1);
    expect(await restricted('renderer/src/components/probe.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;")).toHaveLength(1);
    expect(
      await restricted('renderer/src/components/probe.ts', "import { errorText } from '../lib/errors.ts';\nimport { openExternal } from '../state/records.ts';\nexport const a = [errorText, openExternal];"),
    ).toEqual([]);
    // State is where the calls live.
    expect(await restricted('renderer/src/state/probe.ts', "import { call } from '../lib/api.ts';\nexport const a = call;")).toEqual([]);
  });
  it('renderer/ and shared/ cannot reach electron/ by a relative path', async () => {
    expect(await restricted('renderer/src/probe.ts', "import { logger } from '../../electron/main/base/log.ts';\nexport const a = logger;")).toHaveLength(1);
    expect(await restricted('shared/probe.ts', "import type { Core } from '../electron/main/core/index.ts';\nexport type A = Core;")).toHaveLength(1);
  });
  it.each(['api', 'cache', 'sync', 'export', 'profiles', 'credentials'])('electron/main/%s/ never imports the front ends above it, nor electron', async (zone) => {
    for (const upward of ['../ipc/dispatch.ts', '../app/security.ts', '../core/index.ts', '../cli/program.ts', '../handlers.ts', '../index.ts']) {
      expect(await restricted(`electron/main/${zone}/probe.ts`, `import * as m from '${upward}';\nexport const a = m;`), upward).toHaveLength(1);
    }
    expect(await restricted(`electron/main/${zone}/probe.ts`, "import type { Core } from '../core/index.ts';\nexport type A = Core;")).toHaveLength(1);
    expect(await restricted(`electron/main/${zone}/probe.ts`, "import { app } from 'electron';\nexport const a = app;")).toHaveLength(1);
    expect(await restricted(`electron/main/${zone}/probe.ts`, "export const a = () => import('../core/index.ts');")).toHaveLength(1);
    expect(await restricted(`electron/main/${zone}/probe.ts`, "import { logger } from '../log.ts';\nimport { cacheDir } from '../paths.ts';\nexport const a = [logger, cacheDir];")).toEqual([]);
  });
  it('cache/ imports neither sync/ nor export/, statically or dynamically', async () => {
    expect(await restricted('electron/main/cache/probe.ts', "import { runSync } from '../sync/engine.ts';\nexport const a = runSync;")).toHaveLength(1);
    expect(await restricted('electron/main/cache/probe.ts', "import type { ExportOutcome } from '../export/run.ts';\nexport type A = ExportOutcome;")).toHaveLength(1);
    expect(await restricted('electron/main/cache/probe.ts', "export const a = () => import('../export/run.ts');")).toHaveLength(1);
    expect(await restricted('electron/main/cache/migrations/probe.ts', "import { runSync } from '../../sync/engine.ts';\nexport const a = runSync;")).toHaveLength(1);
    // sync/ and export/ build on the cache.
    expect(await restricted('electron/main/sync/probe.ts', "import { openCache } from '../cache/db.ts';\nexport const a = openCache;")).toEqual([]);
    expect(await restricted('electron/main/export/probe.ts', "import { openCache } from '../cache/db.ts';\nexport const a = openCache;")).toEqual([]);
  });
  it('components/ rooms import only the rooms their allow-list names', async () => {
    const probe = (from: string, spec: string): Promise<string[]> =>
      restricted(`renderer/src/components/${from}/Probe.svelte`, `<script lang="ts">\n  import Part from '${spec}';\n  void Part;\n</script>\n`);
    // Pages hold every room.
    for (const spec of ['../list/ListView.svelte', '../detail/OrderDetail.svelte', '../dialogs/ConfirmDialog.svelte', '../forms/ProfileForm.svelte', '../ui/Icon.svelte', './SummaryPage.svelte']) {
      expect(await probe('pages', spec), spec).toEqual([]);
    }
    expect(await probe('list', '../dialogs/ViewDialog.svelte')).toEqual([]);
    expect(await probe('dialogs', '../forms/ServiceQueryForm.svelte')).toEqual([]);
    expect(await probe('detail', './RawJson.svelte')).toEqual([]);
    expect(await probe('ui', './Icon.svelte')).toEqual([]);
    expect(await probe('ui', '../../lib/format.ts')).toEqual([]);
    // Nothing below the pages imports a page, and ui/ imports no other room.
    for (const room of ['list', 'detail', 'dialogs', 'forms', 'frame', 'ui']) {
      expect(await probe(room, '../pages/ContactsView.svelte'), room).toHaveLength(1);
    }
    expect(await probe('ui', '../list/SearchBox.svelte')).toHaveLength(1);
    expect(await probe('detail', '../list/DataTable.svelte')).toHaveLength(1);
    expect(await probe('forms', '../dialogs/ConfirmDialog.svelte')).toHaveLength(1);
    expect(await probe('frame', '../detail/RawJson.svelte')).toHaveLength(1);
    // The page's own rule still holds inside a room.
    expect(await probe('ui', 'node:fs')).toHaveLength(1);
  });
  it('the preload imports only electron and shared/', async () => {
    expect(await restricted('electron/preload/probe.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;")).toHaveLength(1);
    expect(await restricted('electron/preload/probe.ts', "import { logger } from '../main/log.ts';\nexport const a = logger;")).toHaveLength(1);
    expect(await restricted('electron/preload/probe.ts', "import { z } from 'zod';\nexport const a = z;")).toHaveLength(1);
    expect(await restricted('electron/preload/probe.ts', "import { contextBridge } from 'electron';\nimport { calls } from '../../shared/contract.ts';\nexport const a = [contextBridge, calls];")).toEqual([]);
  });
});
