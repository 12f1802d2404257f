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

/**
 * Zones inside electron/main: the modules below the core (api, cache, sync, export, profiles,
 * credentials) never import the front ends above them (ipc, app, the core, the CLI, the handler
 * table, the Electron entry) nor Electron itself, since the CLI and the worker threads run them in
 * plain Node; the cache imports neither the sync nor the export, which are built on it.
 */
const upward = { regex: '^(\\.\\./)+(ipc|app|core|cli)/|^(\\.\\./)+(handlers|index)\\.ts$', message: 'Modules below the core never import ipc/, app/, core/, cli/, handlers.ts or index.ts: pass what they need in as arguments.' };
const cacheUpward = { regex: '^(\\.\\./)+(sync|export)/', message: 'cache/ is below sync/ and export/: it never imports them (register jobs from outside cache/).' };
const noElectron = { name: 'electron', message: 'This module runs in plain Node too (CLI, worker threads): no electron here.' };
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
  {
    files: ['electron/main/{api,sync,export,profiles,credentials}/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [noElectron], patterns: [upward] }],
      'no-restricted-syntax': ['error', dynamicImport(upward.regex, upward.message)],
    },
  },
  {
    files: ['electron/main/cache/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [noElectron], patterns: [upward, cacheUpward] }],
      'no-restricted-syntax': ['error', dynamicImport(upward.regex, upward.message), dynamicImport(cacheUpward.regex, cacheUpward.message)],
    },
  },
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
    files: ['electron/main/app/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: 'electron', allowTypeImports: true, message: 'app/ takes Electron objects as parameters from index.ts: import only types from electron here.' }] },
      ],
    },
  },
);
