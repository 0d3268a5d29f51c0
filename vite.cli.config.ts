import { builtinModules } from 'node:module';
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// out/cli/main.cjs: the `agents` command compiled ahead of time, its dependencies bundled in, so a
// start reads one file instead of compiling TypeScript (tsx) and resolving hundreds of modules.
// bin/agents.cjs uses it when it is newer than the sources, and tsx otherwise.
export default defineConfig({
  build: {
    outDir: resolve(__dirname, 'out/cli'),
    emptyOutDir: true,
    target: 'node24',
    minify: false,
    sourcemap: false,
    ssr: true,
    rolldownOptions: {
      input: { main: resolve(__dirname, 'main/cli/main.ts') },
      external: [...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
      // `agents serve` is a chunk of its own, read only by that command.
      output: { format: 'cjs', entryFileNames: '[name].cjs', chunkFileNames: 'chunks/[name]-[hash].cjs' },
    },
  },
  ssr: { noExternal: true, target: 'node' },
});
