#!/usr/bin/env node
// The `agents` command. `npm run build` compiles the CLI ahead of time (out/cli/main.cjs); a clone
// without a build, or with sources newer than the build, runs the TypeScript through tsx instead.
require('../scripts/require-node.cjs')('agents');
require('../scripts/serve-malloc.cjs').serveMalloc();
const built = require('../scripts/built-cli.cjs').freshBuiltCli();

if (built) {
  // V8's code cache on disk, so later starts skip compiling: the build's files keep theirs as it is
  // after a run (scripts/code-cache.cjs); Node's compile cache serves them where the build has no
  // room for that cache (the build is all it would serve: it bundles everything else).
  if (!require('../scripts/code-cache.cjs').useCodeCache(require('node:path').dirname(built))) require('node:module').enableCompileCache();
  require(built);
} else {
  require('tsx/cjs');
  // `agents serve` loads its module on demand, through import(): that needs tsx's ESM hooks too.
  require('tsx/esm/api').register();
  require('../main/cli/main.ts');
}
