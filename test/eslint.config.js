// Lint configuration. Run as `eslint --config test/eslint.config.js .` (npm run lint); paths are
// relative to the repository root. The import rules keep each folder in its runtime
// (STYLE.md "Folder = runtime"): nobody has to remember which APIs a folder may touch.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`), 'node:*'];
/** A relative import that reaches into electron/ (only main and the preload live there). */
const toElectronFolder = (folder) => ({ regex: '^(\\.\\./)+electron/', message: `${folder} cannot reach electron/ by a relative path; share code through shared/.` });

const noElectron = { name: 'electron', message: 'This module runs in plain Node too (CLI, worker threads): no electron here.' };

/**
 * The main process's tiers, lowest first (docs/architecture.md "Main-side modules"). A folder may
 * import the folders of every lower tier and shared/; nothing imports upwards. sampleApi/ sits
 * with the second tier: it uses base/ and shared/ only, and the core and the CLI start it.
 */
const MAIN_TIERS = [['base'], ['api', 'credentials', 'profiles', 'sampleApi'], ['cache'], ['sync', 'export', 'previews'], ['core'], ['ipc', 'app', 'cli']];
/** Imports within a tier, each folder → the folders of its own tier it may import (no circle). */
const SAME_TIER = { ipc: ['app'] };
const MAIN_FOLDERS = MAIN_TIERS.flat();
/**
 * Each main-process folder → the folders it may import: an allow-list, as VS Code's layering rule
 * gives each layer one.
 */
const MAIN_IMPORTS = Object.fromEntries(
  MAIN_TIERS.flatMap((tier, level) => tier.map((folder) => [folder, [...MAIN_TIERS.slice(0, level).flat(), ...(SAME_TIER[folder] ?? [])]])),
);
/** What a folder may not import: every other folder not on its allow-list. */
const folderImports = (folder, allowed) => {
  const forbidden = MAIN_FOLDERS.filter((f) => f !== folder && !allowed.includes(f));
  return {
    regex: `^(\\.\\./)+(${forbidden.join('|')})/`,
    message: `electron/main/${folder}/ may import ${allowed.length ? allowed.map((f) => `${f}/`).join(', ') : 'no other folder'} and shared/ only (the tiers: ${MAIN_TIERS.map((t) => t.join(', ')).join(' → ')}): move what both need down, or pass it in as an argument.`,
  };
};
/** The entry files at the top of electron/main start things; nothing imports them (entries.ts, their table, excepted). */
const entryFiles = {
  regex: '^(\\.\\./)+(index|dbWorker|searchIndexWorker|stageWriterWorker|syncProcess|sampleApiWorker)\\.ts$',
  message: 'The entry files at the top of electron/main start a process or a thread; nothing imports them (entries.ts names them).',
};
/** Folders whose modules the app's Electron shell and transport alone may touch Electron in (types only: index.ts passes the objects). */
const ELECTRON_TYPES = ['app', 'ipc'];

/**
 * The cache's zones (docs/architecture.md "The cache"), each → the zones it may import: store/
 * nothing, read/ and build/ only store/, the worker store/ and read/ (and the two writes of
 * savedViews/ whose methods it serves: savedViews.ts, the views' own records, and keptValues.ts,
 * the values the kept filters keep), savedViews/ read/, build/ and
 * store/. Files at the cache's top (a public face) may import every zone.
 */
const CACHE_ZONES = ['store', 'worker', 'read', 'build', 'savedViews'];
const ZONE_IMPORTS = { store: [], read: ['store'], build: ['store'], worker: ['store', 'read'], savedViews: ['store', 'read', 'build'] };
const zoneImports = (zone, allowed) => {
  // The worker may import savedViews/savedViews.ts and keptValues.ts alone: the second pattern refuses the rest.
  const forbidden = CACHE_ZONES.filter((z) => z !== zone && !allowed.includes(z) && !(zone === 'worker' && z === 'savedViews'));
  const message = `cache/${zone}/ may import ${allowed.length ? allowed.map((z) => `cache/${z}/`).join(', ') : 'no other zone of the cache'}${zone === 'worker' ? ' and cache/savedViews/savedViews.ts or keptValues.ts' : ''}: move what both need into cache/store/.`;
  const patterns = [{ regex: `^(\\.\\./)+(${forbidden.join('|')})/`, message }];
  if (zone === 'worker') patterns.push({ regex: '^(\\.\\./)+savedViews/(?!(savedViews|keptValues)\\.ts$)', message });
  return patterns;
};

/** The same rule for `import()` with a literal path, which no-restricted-imports does not see. */
const dynamicImport = (pattern, message) => ({ selector: `ImportExpression[source.value=/${pattern.replaceAll('/', '\\/')}/]`, message });

/** The page's own rule: no Node APIs, no reaching into electron/ (extended per room below). */
const rendererImports = (...patterns) => [
  'error',
  { paths: ['electron'], patterns: [{ group: nodeBuiltins, message: 'renderer/ is the page: no Node APIs; ask main through window.letterdesk.' }, toElectronFolder('renderer/'), ...patterns] },
];

/**
 * The rooms of renderer/src/components/ (docs/architecture.md "The page") and, for each, the other
 * rooms it may import from: an allow-list. Pages import from every room; ui/ only from itself.
 */
const ROOM_IMPORTS = {
  list: ['ui', 'dialogs'],
  detail: ['ui'],
  dialogs: ['ui', 'forms'],
  forms: ['ui'],
  frame: ['ui'],
  overview: ['ui'],
  ui: [],
};
const roomImports = (room, allowed) => ({
  regex: allowed.length ? `^\\.\\./(?!(${allowed.join('|')})/)[A-Za-z]+/` : '^\\.\\./[A-Za-z]+/',
  message: `components/${room}/ may import ${allowed.length ? `only from ${allowed.map((r) => `${r}/`).join(' and ')} among the other rooms` : 'no other room'}; move the shared part into ui/ (or the importer into pages/).`,
});

/** Components reach main only through state/ (the calls, their errors, what the page keeps). */
const componentsCallState = { regex: '/lib/api(\\.ts)?$', message: 'Components call main only through state/: add the call to a state class (renderer/src/state/) and use that.' };

const domGlobals = ['window', 'document', 'navigator', 'localStorage', 'sessionStorage', 'location', 'HTMLElement'].map((name) => ({
  name,
  message: 'shared/ is pure: no DOM here.',
}));

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'test-results/**', 'playwright-report/**', '.bench/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs['flat/recommended'],
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: { parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] } },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['electron/**/*.ts', 'test/**/*.ts', 'test/**/*.js', '*.ts', 'electron/**/*.js'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: ['electron'], patterns: [{ group: ['node:*', ...builtinModules], message: 'shared/ is pure: no Node APIs.' }, toElectronFolder('shared/')] },
      ],
      'no-restricted-globals': ['error', ...domGlobals, { name: 'process', message: 'shared/ is pure: no Node APIs.' }, { name: 'Buffer', message: 'shared/ is pure.' }],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.svelte'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': rendererImports() },
  },
  {
    // Components are markup: they reach main only through the state classes (renderer/src/state/),
    // which own the calls, their errors and what the page keeps of the answers. Each room's rule
    // below repeats this pattern, since a later rule for the same files replaces an earlier one.
    files: ['renderer/src/components/**/*.ts', 'renderer/src/components/**/*.svelte'],
    rules: {
      'no-restricted-imports': rendererImports(componentsCallState),
      'no-restricted-globals': ['error', { name: 'letterdesk', message: 'Components call main only through state/.' }],
      'no-restricted-properties': ['error', { object: 'window', property: 'letterdesk', message: 'Components call main only through state/.' }],
    },
  },
  ...Object.entries(ROOM_IMPORTS).map(([room, allowed]) => ({
    files: [`renderer/src/components/${room}/**/*.svelte`, `renderer/src/components/${room}/**/*.ts`],
    rules: { 'no-restricted-imports': rendererImports(componentsCallState, roomImports(room, allowed)) },
  })),
  // The main process's tiers: each folder's allow-list (MAIN_IMPORTS), no importing an entry
  // file, and no electron but its types in app/ and ipc/. The cache's zones repeat their tier's
  // rule, since a later block for the same files replaces an earlier one.
  ...Object.entries(MAIN_IMPORTS).map(([folder, allowed]) => {
    const patterns = [folderImports(folder, allowed), entryFiles];
    return {
      files: [`electron/main/${folder}/**/*.ts`],
      rules: {
        'no-restricted-imports': ['error', { paths: ELECTRON_TYPES.includes(folder) ? [] : [noElectron], patterns }],
        'no-restricted-syntax': ['error', ...patterns.map((p) => dynamicImport(p.regex, p.message))],
      },
    };
  }),
  ...Object.entries(ZONE_IMPORTS).map(([zone, allowed]) => {
    const patterns = [folderImports('cache', MAIN_IMPORTS.cache), entryFiles, ...zoneImports(zone, allowed)];
    return {
      files: [`electron/main/cache/${zone}/**/*.ts`],
      rules: {
        'no-restricted-imports': ['error', { paths: [noElectron], patterns }],
        'no-restricted-syntax': ['error', ...patterns.map((p) => dynamicImport(p.regex, p.message))],
      },
    };
  }),
  {
    files: ['electron/preload/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^(?!electron$|(\\.\\./)+shared/)', message: 'The preload may import only electron and shared/.' }] },
      ],
    },
  },
  {
    // The Electron glue receives Electron's objects as parameters (index.ts, the composition root,
    // passes them), so the unit tests can hand it fakes typed against electron.d.ts.
    files: ELECTRON_TYPES.map((folder) => `electron/main/${folder}/**/*.ts`),
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: 'electron', allowTypeImports: true, message: 'app/ and ipc/ take Electron objects as parameters from index.ts: import only types from electron here.' }] },
      ],
    },
  },
);
