// Lint, including the layering of docs/ARCHITECTURE.md: a wrong import between top-level folders is an error.
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const nodeBuiltins = builtinModules.filter((m) => !m.startsWith('_'));
const noNode = [
  { group: ['node:*'], message: 'Node built-ins belong in main/.' },
  { regex: `^(${nodeBuiltins.map((m) => m.replace(/[/]/g, '\\/')).join('|')})(\\/.*)?$`, message: 'Node built-ins belong in main/.' },
];
const noElectron = { group: ['electron', 'electron/*'], message: 'Only main/electron and preload/ may import electron.' };
const noReact = { group: ['react', 'react-dom', 'react/*', 'react-dom/*', 'zustand', 'zustand/*'], message: 'UI libraries belong in renderer/.' };
const folder = (names) => ({
  regex: `^(\\.\\.\\/)+(${names.join('|')})(\\/|$)`,
  message: `shared/ is the only folder every layer may import; ${names.join(', ')} may not be imported from here.`,
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'out/**', 'dist/**', 'coverage/**', 'test-results/**', 'playwright-report/**', 'bin/**', 'scripts/**', 'examples/**', 'tests/support/*.cjs'] },
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    files: ['shared/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [...noNode, noElectron, noReact, folder(['main', 'preload', 'renderer', 'features', 'e2e'])] }] },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { 'no-restricted-imports': ['error', { patterns: [...noNode, noElectron, folder(['main', 'preload', 'features', 'e2e'])] }] },
  },
  {
    files: ['preload/**/*.{ts,tsx}'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(?!electron$|\\.)', message: 'preload/ may import only electron and shared/.' },
            folder(['main', 'renderer', 'features', 'e2e']),
          ],
        },
      ],
    },
  },
  {
    files: ['main/**/*.{ts,tsx}'],
    ignores: ['main/electron/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noElectron, noReact, folder(['preload', 'renderer', 'features', 'e2e'])] }] },
  },
  {
    files: ['main/electron/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [noReact, folder(['preload', 'renderer', 'features', 'e2e'])] }] },
  },
);
