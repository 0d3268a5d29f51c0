import { describe, expect, it } from 'vitest';
import { highlightLine, languageFor } from './highlight';

const classes = (text: string, path: string) =>
  highlightLine(text, languageFor(path))
    .filter((t) => t.cls)
    .map((t) => `${t.cls}:${t.text}`);

describe('syntax highlighting', () => {
  it('picks a language from the file extension', () => {
    expect(languageFor('src/a.tsx')).toBe('js');
    expect(languageFor('x/run.py')).toBe('python');
    expect(languageFor('LICENSE')).toBe('plain');
  });

  it('marks keywords, strings, numbers and comments', () => {
    expect(classes('const x = "a // b"; // note', 'a.ts')).toEqual(['kw:const', 'str:"a // b"', 'com:// note']);
    expect(classes('return 42', 'a.js')).toEqual(['kw:return', 'num:42']);
    expect(classes('def f(): # hi', 'a.py')).toEqual(['kw:def', 'com:# hi']);
  });

  it('keeps the text intact', () => {
    const line = 'if (a) { return `t${b}`; } /* c */';
    expect(highlightLine(line, 'js').map((t) => t.text).join('')).toBe(line);
  });

  it('leaves plain text alone', () => {
    expect(highlightLine('const x', 'plain')).toEqual([{ text: 'const x', cls: null }]);
  });
});
