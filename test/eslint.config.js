// Lint configuration. Run as `eslint --config test/eslint.config.js .` (npm run lint); paths are
// relative to the repository root. The import rules keep each folder in its runtime
// (STYLE.md "Folder = runtime"): nobody has to remember which APIs a folder may touch.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import { builtinModules } from 'node:module';

const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`), 'node:*'];
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
      'no-restricted-imports': ['error', { paths: ['electron'], patterns: [{ group: ['node:*', ...builtinModules], message: 'shared/ is pure: no Node APIs.' }] }],
      'no-restricted-globals': ['error', ...domGlobals, { name: 'process', message: 'shared/ is pure: no Node APIs.' }, { name: 'Buffer', message: 'shared/ is pure.' }],
    },
  },
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.svelte'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: ['electron'], patterns: [{ group: nodeBuiltins, message: 'renderer/ is the page: no Node APIs; ask main through window.letterdesk.' }] },
      ],
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
);
