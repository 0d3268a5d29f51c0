#!/usr/bin/env node
// The `agents` command. `npm run build` compiles the CLI ahead of time (out/cli/main.cjs); a clone
// without a build, or with sources newer than the build, runs the TypeScript through tsx instead.
require('../scripts/require-node.cjs')('agents');
const built = require('../scripts/built-cli.cjs').freshBuiltCli();

if (built) {
  // V8's code cache on disk: later starts skip compiling the build (scripts/code-cache.cjs).
  if (!require('../scripts/code-cache.cjs').useCodeCache(require('node:path').dirname(built))) require('node:module').enableCompileCache();
  require(built);
} else {
  require('tsx/cjs');
  // `agents serve` loads its module on demand, through import(): that needs tsx's ESM hooks too.
  require('tsx/esm/api').register();
  require('../main/cli/main.ts');
}
