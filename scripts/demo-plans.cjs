'use strict';
// What `npm start` says about each demo plan it creates on a first start.

/**
 * One line per demo plan: its id, or why it was not created. An agent plan is refused while no
 * model is configured, as on every first start; that is a setting to make, not an error to read.
 */
function demoPlanLine(file, created) {
  if (created.status === 0) return `demo plan ${file}: ${created.stdout.trim()}`;
  const refusal = created.stderr.trim();
  if (/^error: agent\.model:/m.test(refusal)) return `demo plan ${file}: needs a model: open Settings in the console (or set AGENTS_MODEL), then create it`;
  return `demo plan ${file} not created: ${refusal}`;
}

module.exports = { demoPlanLine };
