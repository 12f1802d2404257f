/**
 * The folder = runtime rules (STYLE.md) and the main process's layering (docs/architecture.md):
 * the lint configuration refuses imports that cross a runtime boundary, run against the order of
 * electron/main's tiers or between the cache's zones, and lets the allowed ones through. Checked
 * by linting small probes as if they lived in each folder.
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
    for (const upward of ['../ipc/dispatch.ts', '../app/security.ts', '../core/index.ts', '../cli/program.ts', '../ipc/handlers.ts', '../index.ts']) {
      expect(await restricted(`electron/main/${zone}/probe.ts`, `import * as m from '${upward}';\nexport const a = m;`), upward).toHaveLength(1);
    }
    expect(await restricted(`electron/main/${zone}/probe.ts`, "import type { Core } from '../core/index.ts';\nexport type A = Core;")).toHaveLength(1);
    expect(await restricted(`electron/main/${zone}/probe.ts`, "import { app } from 'electron';\nexport const a = app;")).toHaveLength(1);
    expect(await restricted(`electron/main/${zone}/probe.ts`, "export const a = () => import('../core/index.ts');")).toHaveLength(1);
    expect(await restricted(`electron/main/${zone}/probe.ts`, "import { logger } from '../base/log.ts';\nimport { cacheDir } from '../base/paths.ts';\nexport const a = [logger, cacheDir];")).toEqual([]);
  });
  it('cache/ imports neither sync/ nor export/, statically or dynamically', async () => {
    expect(await restricted('electron/main/cache/probe.ts', "import { runSync } from '../sync/engine.ts';\nexport const a = runSync;")).toHaveLength(1);
    expect(await restricted('electron/main/cache/probe.ts', "import type { ExportOutcome } from '../export/run.ts';\nexport type A = ExportOutcome;")).toHaveLength(1);
    expect(await restricted('electron/main/cache/probe.ts', "export const a = () => import('../export/run.ts');")).toHaveLength(1);
    expect(await restricted('electron/main/cache/store/migrations/probe.ts', "import { runSync } from '../../../sync/engine.ts';\nexport const a = runSync;")).toHaveLength(1);
    // sync/ and export/ build on the cache.
    expect(await restricted('electron/main/sync/probe.ts', "import { openCache } from '../cache/store/db.ts';\nexport const a = openCache;")).toEqual([]);
    expect(await restricted('electron/main/export/probe.ts', "import { openCache } from '../cache/store/db.ts';\nexport const a = openCache;")).toEqual([]);
  });
});

/** Lints `import * as m from spec` as if it were the file `electron/main/<file>`. */
const importing = (file: string, spec: string): Promise<string[]> => restricted(`electron/main/${file}`, `import * as m from '${spec}';\nexport const a = m;`);

describe('electron/main: the tiers base → api, credentials, profiles → cache → sync, export, previews → core → ipc, app, cli', () => {
  it('refuses an import against the order, and one within a tier that its allow-list does not name', async () => {
    const against: [string, string][] = [
      ['base/probe.ts', '../api/client.ts'],
      ['base/probe.ts', '../profiles/store.ts'],
      ['api/probe.ts', '../profiles/baseUrl.ts'],
      ['profiles/probe.ts', '../credentials/store.ts'],
      ['profiles/probe.ts', '../sync/lock.ts'],
      ['credentials/probe.ts', '../cache/store/db.ts'],
      ['sampleApi/probe.ts', '../cache/build/previews.ts'],
      ['sampleApi/probe.ts', '../api/client.ts'],
      ['cache/read/probe.ts', '../../previews/serve.ts'],
      ['cache/store/probe.ts', '../../sync/lock.ts'],
      ['sync/probe.ts', '../previews/refresh.ts'],
      ['sync/probe.ts', '../core/index.ts'],
      ['export/probe.ts', '../sync/engine.ts'],
      ['previews/probe.ts', '../app/schemeResponse.ts'],
      ['previews/probe.ts', '../export/csv.ts'],
      ['core/probe.ts', '../ipc/handlers.ts'],
      ['core/probe.ts', '../app/security.ts'],
      ['core/probe.ts', '../cli/context.ts'],
      ['app/probe.ts', '../ipc/dispatch.ts'],
      ['app/probe.ts', '../cli/program.ts'],
      ['cli/probe.ts', '../app/security.ts'],
      ['cli/commands/probe.ts', '../../ipc/handlers.ts'],
    ];
    for (const [file, spec] of against) expect(await importing(file, spec), `${file} → ${spec}`).toHaveLength(1);
    expect(await restricted('electron/main/api/probe.ts', "export const a = () => import('../sync/engine.ts');")).toHaveLength(1);
  });
  it('allows an import of a lower tier, of shared/, and the one arrow within a tier its allow-list names', async () => {
    const allowed: [string, string][] = [
      ['base/probe.ts', '../../../shared/errors.ts'],
      ['base/probe.ts', './log.ts'],
      ['api/probe.ts', '../base/cappedBody.ts'],
      ['api/probe.ts', '../../../shared/loopback.ts'],
      ['sampleApi/probe.ts', '../base/log.ts'],
      ['cache/store/probe.ts', '../../base/lockFiles.ts'],
      ['sync/probe.ts', '../api/client.ts'],
      ['sync/probe.ts', '../cache/build/staging.ts'],
      ['previews/probe.ts', '../base/schemeResponse.ts'],
      ['previews/probe.ts', '../cache/build/previews.ts'],
      ['core/probe.ts', '../sync/lock.ts'],
      ['core/probe.ts', '../sampleApi/server.ts'],
      ['core/probe.ts', '../previews/serve.ts'],
      ['ipc/probe.ts', '../core/index.ts'],
      ['ipc/probe.ts', '../app/security.ts'],
      ['app/probe.ts', '../previews/serve.ts'],
      ['app/probe.ts', '../sync/process.ts'],
      ['cli/probe.ts', '../core/index.ts'],
      ['cli/commands/probe.ts', '../../export/columns.ts'],
    ];
    for (const [file, spec] of allowed) expect(await importing(file, spec), `${file} → ${spec}`).toEqual([]);
  });
  it('lets nothing import an entry file but entries.ts, their table; the entry files import anything', async () => {
    for (const entry of ['../index.ts', '../syncProcess.ts', '../dbWorker.ts', '../sampleApiWorker.ts']) expect(await importing('core/probe.ts', entry), entry).toHaveLength(1);
    expect(await importing('cache/build/probe.ts', '../../stageWriterWorker.ts')).toHaveLength(1);
    expect(await importing('cache/worker/probe.ts', '../../entries.ts')).toEqual([]);
    expect(await importing('sync/probe.ts', '../entries.ts')).toEqual([]);
    expect(await importing('syncProbe.ts', './previews/refresh.ts')).toEqual([]);
    expect(await importing('dbProbe.ts', './export/write.ts')).toEqual([]);
  });
  it('keeps electron to its types in app/ and ipc/, and out of every other folder', async () => {
    expect(await restricted('electron/main/core/probe.ts', "import { app } from 'electron';\nexport const a = app;")).toHaveLength(1);
    expect(await restricted('electron/main/cli/probe.ts', "import type { App } from 'electron';\nexport type A = App;")).toHaveLength(1);
    const typed = async (file: string, code: string): Promise<number> => {
      const [result] = await eslint.lintText(code, { filePath: resolve(root, file) });
      return (result?.messages ?? []).filter((m) => m.ruleId === '@typescript-eslint/no-restricted-imports').length;
    };
    expect(await typed('electron/main/ipc/probe.ts', "import { ipcMain } from 'electron';\nexport const a = ipcMain;")).toBe(1);
    expect(await typed('electron/main/ipc/probe.ts', "import type { IpcMain } from 'electron';\nexport type A = IpcMain;")).toBe(0);
    expect(await typed('electron/main/app/probe.ts', "import type { App } from 'electron';\nexport type A = App;")).toBe(0);
  });
});

describe('electron/main/cache: the zones store, read and build, worker, savedViews', () => {
  it('refuses an import its zone may not make', async () => {
    const against: [string, string][] = [
      ['cache/store/probe.ts', '../read/list.ts'],
      ['cache/store/probe.ts', '../build/ingest.ts'],
      ['cache/store/probe.ts', '../worker/protocol.ts'],
      ['cache/store/migrations/probe.ts', '../../savedViews/savedViews.ts'],
      ['cache/read/probe.ts', '../build/ingest.ts'],
      ['cache/read/probe.ts', '../worker/methods.ts'],
      ['cache/read/probe.ts', '../savedViews/members.ts'],
      ['cache/build/probe.ts', '../read/queries.ts'],
      ['cache/build/probe.ts', '../savedViews/mirror.ts'],
      ['cache/build/probe.ts', '../worker/client.ts'],
      ['cache/worker/probe.ts', '../build/publish.ts'],
      ['cache/worker/probe.ts', '../savedViews/publish.ts'],
      ['cache/savedViews/probe.ts', '../worker/methods.ts'],
    ];
    for (const [file, spec] of against) expect(await importing(file, spec), `${file} → ${spec}`).toHaveLength(1);
    expect(await restricted('electron/main/cache/build/probe.ts', "export const a = () => import('../read/list.ts');")).toHaveLength(1);
    // A zone keeps its tier's rule.
    expect(await importing('cache/read/probe.ts', '../../sync/engine.ts')).toHaveLength(1);
    expect(await restricted('electron/main/cache/build/probe.ts', "import { app } from 'electron';\nexport const a = app;")).toHaveLength(1);
  });
  it('allows what its zone may use', async () => {
    const allowed: [string, string][] = [
      ['cache/store/probe.ts', './collation.ts'],
      ['cache/store/migrations/probe.ts', './index.ts'],
      ['cache/read/probe.ts', '../store/positions.ts'],
      ['cache/build/probe.ts', '../store/columns.ts'],
      ['cache/worker/probe.ts', '../read/queries.ts'],
      ['cache/worker/probe.ts', '../store/db.ts'],
      ['cache/worker/probe.ts', '../savedViews/savedViews.ts'],
      ['cache/worker/probe.ts', '../savedViews/keptValues.ts'],
      ['cache/savedViews/probe.ts', '../read/list.ts'],
      ['cache/savedViews/probe.ts', '../build/staging.ts'],
      ['cache/savedViews/probe.ts', '../store/searchIndex.ts'],
      ['cache/probe.ts', './savedViews/publish.ts'],
      ['cache/probe.ts', './worker/client.ts'],
      ['cache/build/probe.ts', '../../base/log.ts'],
    ];
    for (const [file, spec] of allowed) expect(await importing(file, spec), `${file} → ${spec}`).toEqual([]);
  });
});

describe('import rules per folder: the page and the preload', () => {
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
    expect(await restricted('electron/preload/probe.ts', "import { logger } from '../main/base/log.ts';\nexport const a = logger;")).toHaveLength(1);
    expect(await restricted('electron/preload/probe.ts', "import { z } from 'zod';\nexport const a = z;")).toHaveLength(1);
    expect(await restricted('electron/preload/probe.ts', "import { contextBridge } from 'electron';\nimport { calls } from '../../shared/contract.ts';\nexport const a = [contextBridge, calls];")).toEqual([]);
  });
});
