// The import graph of the TypeScript sources, and its circles (docs/ARCHITECTURE.md, "Layers").
// Every relative import counts, `import type` too: a circle of types is still two modules
// that cannot be read, moved or loaded one without the other.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const SOURCE = /\.(ts|tsx)$/;
const NOT_PRODUCTION = /(\.test\.tsx?|\.d\.ts|\/test-support(\.ts|\/.*))$/;

/** The production TypeScript files under `dir` (tests and test support left out). */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'node_modules') out.push(...sourceFiles(path));
    } else if (SOURCE.test(name) && !NOT_PRODUCTION.test(path)) out.push(path);
  }
  return out;
}

function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')]) {
    if (SOURCE.test(candidate) && existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Each file's relative imports that resolve to a file, `import type` and re-exports included. */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles.map((f) => resolveImport(file, f.fileName)).filter((f): f is string => f !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The circles of the graph: its strongly connected components of more than one file, or a file importing itself (Tarjan). */
export function importCircles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) circles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles;
}

/** The circles among the production files under `dirs` of `root`, each as paths relative to `root`. */
export function circlesUnder(root: string, dirs: readonly string[]): string[][] {
  const files = dirs.flatMap((d) => sourceFiles(join(root, d)));
  return importCircles(importGraph(files)).map((c) => c.map((f) => relative(root, f)));
}
