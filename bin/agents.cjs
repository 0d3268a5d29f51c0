#!/usr/bin/env node
// The `agents` command: runs the TypeScript CLI through tsx, so a clone needs no build step.
require('../scripts/require-node.cjs')('agents');
require('tsx/cjs');
require('../main/cli/main.ts');
