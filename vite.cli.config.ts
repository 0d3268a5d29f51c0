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

/** Built-ins Node has loaded before the CLI's first line: requiring them costs nothing. */
const LOADED_AT_START = new Set(['fs', 'path', 'events', 'process', 'util', 'buffer', 'module', 'url', 'os', 'sqlite', 'timers']);

/**
 * A chunk's built-ins are required where they are first used, not at its top: `node:crypto`,
 * `node:zlib`, `node:child_process` and `node:readline` took 25 ms of a start that `plan list` never
 * uses. Rolldown requires every external at the top of a CommonJS chunk; a built-in whose binding
 * the chunk only reads properties of (`node_zlib.gzipSync`) becomes a namespace that requires it at
 * the first read. Any other use leaves it as rolldown wrote it.
 */
function lazyBuiltins(): Plugin {
  const declaration = /^let (\w+) = require\("node:([\w/]+)"\);\n(?:\1 = require_rolldown_runtime\.__toESM\(\1, 1\);\n)?/gm;
  return {
    name: 'lazy-builtins',
    renderChunk(code) {
      let changed = false;
      const out = code.replace(declaration, (all, binding: string, id: string) => {
        if (LOADED_AT_START.has(id)) return all;
        const uses = code.match(new RegExp(`\\b${binding}\\b(?!\\$)(\\.\\w+)?`, 'g')) ?? [];
        const declared = all.split(binding).length - 1;
        // Every use but the declaration reads a property.
        if (uses.filter((use) => !use.includes('.')).length !== declared) return all;
        changed = true;
        return `let ${binding} = __lazyBuiltin(${JSON.stringify(`node:${id}`)}, ${all.includes('__toESM')});\n`;
      });
      if (!changed) return null;
      // `default` is the module itself after __toESM(…, 1), as rolldown's interop makes it.
      return `${out}\nfunction __lazyBuiltin(id, esm) {\n\tlet loaded;\n\treturn new Proxy({}, { get: (_, key) => {\n\t\tloaded ??= require(id);\n\t\treturn esm && key === "default" ? loaded : loaded[key];\n\t} });\n}\n`;
    },
  };
}

/**
 * What main/cli/program.ts imports statically, module by module: every command loads all of it, so it
 * is one chunk (`program`). Without this, each module a deferred use case shares with it became a
 * common chunk of its own, and a start read 26 files instead of 14.
 */
function programClosure(): { plugin: Plugin; has: (id: string) => boolean } {
  const closure = new Set<string>();
  const program = resolve(__dirname, 'main/cli/program.ts');
  return {
    has: (id) => closure.has(id),
    plugin: {
      name: 'program-closure',
      buildEnd() {
        const pending = [program];
        while (pending.length > 0) {
          const id = pending.pop()!;
          if (closure.has(id)) continue;
          closure.add(id);
          pending.push(...(this.getModuleInfo(id)?.importedIds ?? []));
        }
      },
    },
  };
}

const programChunk = programClosure();

// out/cli/main.cjs: the `agents` command compiled ahead of time, its dependencies bundled in, so a
// start reads a few files instead of compiling TypeScript (tsx) and resolving hundreds of modules.
// bin/agents.cjs uses it when it is newer than the sources, and tsx otherwise.
export default defineConfig({
  plugins: [listSources(), lazyBuiltins(), programChunk.plugin],
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
      // Each command, `agents serve` and the model SDKs are chunks read when a command asks for them
      // (main/cli/program.ts). zod is one of its own: main.cjs configures it before anything builds a schema.
      output: {
        format: 'cjs',
        entryFileNames: '[name].cjs',
        chunkFileNames: 'chunks/[name]-[hash].cjs',
        codeSplitting: {
          groups: [
            { name: 'zod', test: /[\\/]node_modules[\\/]zod[\\/]/, priority: 2 },
            { name: 'program', test: (id) => programChunk.has(id), priority: 1 },
          ],
        },
      },
    },
  },
  ssr: { noExternal: true, target: 'node' },
});
