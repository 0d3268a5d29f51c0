'use strict';
// Where the ahead-of-time build of the CLI is (`npm run build`: out/cli/main.cjs), and whether it is
// fresh: newer than every file it is built from. bin/agents.cjs and the CLI benchmark both ask here.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const BUILT = path.join(ROOT, 'out', 'cli', 'main.cjs');

// Tests are never bundled: stating them would only slow every start.
const NOT_BUNDLED = /\.test\.tsx?$|[\\/]test-support([\\/]|$)/;

/** The newest modification time of the CLI's sources. */
function newestSource() {
  let newest = fs.statSync(path.join(ROOT, 'package.json')).mtimeMs;
  for (const dir of ['main', 'shared']) {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || NOT_BUNDLED.test(path.join(entry.parentPath, entry.name))) continue;
      const mtime = fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs;
      if (mtime > newest) newest = mtime;
    }
  }
  return newest;
}

/** The built CLI's path when it exists and is fresh, else null (then run the sources). */
function freshBuiltCli() {
  let builtAt;
  try {
    builtAt = fs.statSync(BUILT).mtimeMs;
  } catch {
    return null;
  }
  try {
    return builtAt >= newestSource() ? BUILT : null;
  } catch {
    // An installed package without its sources: the build is all there is.
    return BUILT;
  }
}

module.exports = { BUILT_CLI: BUILT, freshBuiltCli };
