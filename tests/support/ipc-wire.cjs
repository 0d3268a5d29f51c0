'use strict';
// How the IPC stand-in carries a value between the page and the main process's stand-in: JSON,
// plus undefined and Error, which Electron's structured clone keeps and JSON would not. Anything
// else a clone keeps and JSON cannot (a Map, a Date, NaN) is refused rather than carried differently.
// Both functions are self-contained: the page gets them as source text.

function encodeWire(value) {
  const walk = (v) => {
    if (v === undefined) return { '\u0000': 'undefined' };
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0)) return v;
    if (Array.isArray(v)) return v.map(walk);
    if (v instanceof Error) return { '\u0000': 'error', name: v.name, message: v.message };
    const proto = typeof v === 'object' ? Object.getPrototypeOf(v) : undefined;
    if (proto === Object.prototype || proto === null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    throw new Error(`the IPC stand-in cannot carry ${Object.prototype.toString.call(v)} (${String(v)})`);
  };
  return JSON.stringify(walk(value));
}

function decodeWire(text) {
  const walk = (v) => {
    if (Array.isArray(v)) return v.map(walk);
    if (v === null || typeof v !== 'object') return v;
    if (v['\u0000'] === 'undefined') return undefined;
    if (v['\u0000'] === 'error') {
      const error = new Error(v.message);
      error.name = v.name;
      return error;
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
  };
  return walk(JSON.parse(text));
}

module.exports = { encodeWire, decodeWire };
