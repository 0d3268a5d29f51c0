import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

// out/main (the desktop app's main process), out/preload (one CommonJS file, as a sandboxed
// preload must be), out/renderer (the React console, also what `agents serve` serves).
export default defineConfig({
  main: {
    build: {
      outDir: resolve(__dirname, 'out/main'),
      // Dependencies (all pure JavaScript) load from node_modules; SQLite is Node's own node:sqlite.
      externalizeDeps: true,
      rolldownOptions: {
        input: { index: resolve(__dirname, 'main/electron/index.ts') },
        // The app's lazy imports keep the CLI's start small (its build, vite.cli.config.ts, splits at them);
        // the desktop app loads all of main/ at its start, so here they rightly stay in the one bundle.
        onwarn(warning, warn) {
          if (warning.code !== 'INEFFECTIVE_DYNAMIC_IMPORT') warn(warning);
        },
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(__dirname, 'out/preload'),
      // A sandboxed preload cannot require node_modules: zod and shared/ are bundled in.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(__dirname, 'preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].js' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      rolldownOptions: { input: resolve(__dirname, 'renderer/index.html') },
    },
  },
});
