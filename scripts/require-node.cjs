'use strict';
// One line and exit 2 on a Node.js older than package.json's engines, instead of a stack trace
// from the first `node:sqlite` import. Kept free of syntax an old Node could not parse.
const MAJOR = 24;

module.exports = function requireNode(tool) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= MAJOR) return;
  process.stderr.write(
    `${tool}: needs Node.js ${MAJOR} or newer, this is ${process.versions.node}; see "Setup" in README.md (nvm use, or Node ${MAJOR} from npm)\n`,
  );
  process.exit(2);
};
