// Lint, including the layering of docs/ARCHITECTURE.md: a wrong import between layers is an error.
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

// Layers inside main/ (docs/ARCHITECTURE.md): each may import only the layers listed, and shared/.
const MAIN_LAYERS = {
  engine: [],
  persistence: ['engine'],
  app: ['persistence', 'engine'],
  host: ['app'],
  web: ['host', 'app'],
  electron: ['host', 'app'],
  // `agents serve` starts the web host.
  cli: ['host', 'app', 'web'],
};
const LAYER_NAMES = Object.keys(MAIN_LAYERS);
/** Layers below `layer`, transitively: what its tests may reach for fixtures. */
const below = (layer) => [...new Set(MAIN_LAYERS[layer].flatMap((l) => [l, ...below(l)]))];
const TEST_FILES = ['**/*.test.ts', '**/*.test.tsx', '**/test-support/**', '**/test-support.ts', '**/fuzz-arbitraries.ts'];
const sourceFiles = (depth) => [`${'*/'.repeat(depth)}*.ts`, `${'*/'.repeat(depth)}*.tsx`];
const testFiles = (depth) => [
  ...['*.test.ts', '*.test.tsx', 'test-support.ts', 'fuzz-arbitraries.ts'].map((f) => `${'*/'.repeat(depth)}${f}`),
  ...(depth > 0 ? [`${'*/'.repeat(depth - 1)}test-support/*.ts`] : []),
];
/** One config per folder depth, so `../` counts reach exactly main/<layer>. */
function innerLayerConfigs(layer, allowed, files, ignores) {
  const forbidden = LAYER_NAMES.filter((l) => l !== layer && !allowed.includes(l));
  return [0, 1, 2, 3].map((depth) => ({
    files: files(depth).map((f) => `main/${layer}/${f}`),
    ignores,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...mainPatterns(layer),
            {
              regex: `^${'\\.\\./'.repeat(depth + 1)}(${forbidden.join('|')})(\\/|$)`,
              message: `main/${layer} may import only ${[...allowed, 'shared'].map((l) => (l === 'shared' ? 'shared/' : `main/${l}`)).join(', ')} (docs/ARCHITECTURE.md, "Layers").`,
            },
          ],
        },
      ],
    },
  }));
}
const mainPatterns = (layer) =>
  layer === 'electron'
    ? [noReact, folder(['preload', 'renderer', 'features', 'e2e'])]
    : [noElectron, noReact, folder(['preload', 'renderer', 'features', 'e2e'])];
const innerLayers = LAYER_NAMES.flatMap((layer) => [
  ...innerLayerConfigs(layer, MAIN_LAYERS[layer], sourceFiles, TEST_FILES),
  // Tests may build fixtures from any layer below their own, never from one above.
  ...innerLayerConfigs(layer, [...new Set([...MAIN_LAYERS[layer], ...below(layer)])], testFiles, []),
]);

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
    rules: {
      'no-restricted-imports': ['error', { patterns: [...noNode, noElectron, folder(['main', 'preload', 'features', 'e2e'])] }],
      // An Error's class does not cross contextBridge: a failure is read by its shape (failureOf, errorText).
      'no-restricted-syntax': [
        'error',
        { selector: "BinaryExpression[operator='instanceof'][right.name=/Error$/]", message: 'Read a failure by its shape (failureOf or errorText), never by its class: the desktop bridge rejects with a plain object.' },
      ],
    },
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
  ...innerLayers,
);
