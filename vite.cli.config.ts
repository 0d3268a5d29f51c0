import { builtinModules } from 'node:module';
import { isAbsolute, relative, resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vite';

/** out/cli/sources.json: the project's files the build bundled, which bin/agents.cjs checks it is newer than. */
function listSources(): Plugin {
  return {
    name: 'list-sources',
    generateBundle(_, bundle) {
      const files = new Set<string>();
      for (const output of Object.values(bundle)) {
        if (output.type !== 'chunk') continue;
        for (const id of Object.keys(output.modules)) {
          // Virtual modules have no file; a dependency changes with package.json.
          if (!isAbsolute(id)) continue;
          const file = relative(__dirname, id.split('?')[0]);
          if (!file.startsWith('..') && !file.startsWith('node_modules')) files.add(file);
        }
      }
      this.emitFile({ type: 'asset', fileName: 'sources.json', source: JSON.stringify([...files].sort()) });
    },
  };
}

// out/cli/main.cjs: the `agents` command compiled ahead of time, its dependencies bundled in, so a
// start reads one file instead of compiling TypeScript (tsx) and resolving hundreds of modules.
// bin/agents.cjs uses it when it is newer than the sources, and tsx otherwise.
export default defineConfig({
  plugins: [listSources()],
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
