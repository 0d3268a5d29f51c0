#!/usr/bin/env node
// The `agents` command. `npm run build` compiles the CLI ahead of time (out/cli/main.cjs); a clone
// without a build, or with sources newer than the build, runs the TypeScript through tsx instead.
require('../scripts/require-node.cjs')('agents');
const built = require('../scripts/built-cli.cjs').freshBuiltCli();

if (built) {
  // V8's code cache on disk, so later starts skip compiling: the build's files keep theirs as it is
  // after a run (scripts/code-cache.cjs); Node's compile cache serves any other, and all of them where
  // the build has no room for that cache.
  require('node:module').enableCompileCache();
  require('../scripts/code-cache.cjs').useCodeCache(require('node:path').dirname(built));
  require(built);
} else {
  require('tsx/cjs');
  // `agents serve` loads its module on demand, through import(): that needs tsx's ESM hooks too.
  require('tsx/esm/api').register();
  require('../main/cli/main.ts');
}
