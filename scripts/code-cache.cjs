'use strict';
// V8's code cache for the built CLI's files, made when the process ends rather than when each file is
// compiled. Node's own (module.enableCompileCache) is made at compile time and so holds only the code
// that runs on load: every function a command calls later, zod's included, was compiled again on every
// start. A cache made after the run holds those too (plan list: about 20 ms less CPU per start).
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const Module = require('node:module');

/** V8 checks a cache's version and flags but not the whole source: the file's size and time are checked here. */
function stamp(filename) {
  const stat = fs.statSync(filename);
  return `${process.version} ${process.arch} ${stat.size} ${stat.mtimeMs}`;
}

function readCache(file, expected) {
  try {
    const data = fs.readFileSync(file);
    const end = data.indexOf(10);
    return end > 0 && data.toString('latin1', 0, end) === expected ? data.subarray(end + 1) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Compiles the files under `dir` (the build, out/cli) with the cache kept in `dir/code-cache`, which
 * the next build empties with the rest. Returns false, changing nothing, where that folder cannot be
 * made (an installed package read-only to its user).
 */
function useCodeCache(dir) {
  const cacheDir = path.join(dir, 'code-cache');
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    fs.accessSync(cacheDir, fs.constants.W_OK);
  } catch {
    return false;
  }
  const prefix = dir + path.sep;
  const toWrite = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename, format) {
    if (!filename.startsWith(prefix) || format === 'module') return compile.call(this, content, filename, format);
    const file = path.join(cacheDir, `${path.basename(filename)}.v8`);
    const expected = stamp(filename);
    const cachedData = readCache(file, expected);
    const script = new vm.Script(Module.wrap(content), {
      filename,
      cachedData,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (!cachedData || script.cachedDataRejected) toWrite.push({ script, file, expected });
    const require = Module.createRequire(filename);
    return script.runInThisContext().call(this.exports, this.exports, require, this, filename, path.dirname(filename));
  };
  process.once('exit', () => {
    for (const { script, file, expected } of toWrite) {
      try {
        // Written whole, then renamed: another start reads the old cache or the new one, never half of one.
        const temp = `${file}.${process.pid}`;
        fs.writeFileSync(temp, Buffer.concat([Buffer.from(`${expected}\n`, 'latin1'), script.createCachedData()]));
        fs.renameSync(temp, file);
      } catch {
        // A cache is only ever a saving.
      }
    }
  });
  return true;
}

module.exports = { useCodeCache };
