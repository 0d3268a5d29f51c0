'use strict';
// Where the ahead-of-time build of the CLI is (`npm run build`: out/cli/main.cjs), and whether it is
// fresh: newer than every file it was built from. bin/agents.cjs and the CLI benchmark both ask here.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const BUILT = path.join(ROOT, 'out', 'cli', 'main.cjs');
/** The project's own files the build bundled, written by the build (vite.cli.config.ts). */
const SOURCES = path.join(ROOT, 'out', 'cli', 'sources.json');

/**
 * Whether any file the build bundled changed since (or is gone). Only those files are stated: a
 * new file changes the build only through an import added to one of them, which is then newer.
 */
function changedSince(builtAt) {
  const sources = JSON.parse(fs.readFileSync(SOURCES, 'utf8'));
  // The paths are relative and normal already: path.join of each took longer than its stat.
  const prefix = ROOT + path.sep;
  for (const file of ['package.json', ...sources]) {
    const stat = fs.statSync(prefix + file, { throwIfNoEntry: false });
    if (!stat || stat.mtimeMs > builtAt) return true;
  }
  return false;
}

/** The built CLI's path when it exists and is fresh, else null (then run the sources). */
function freshBuiltCli() {
  let builtAt;
  try {
    builtAt = fs.statSync(BUILT).mtimeMs;
  } catch {
    return null;
  }
  // An installed package without its sources: the build is all there is.
  if (!fs.existsSync(path.join(ROOT, 'main'))) return BUILT;
  try {
    return changedSince(builtAt) ? null : BUILT;
  } catch {
    // A build without its list of sources (made before it was written): build again to use it.
    return null;
  }
}

module.exports = { BUILT_CLI: BUILT, freshBuiltCli };
