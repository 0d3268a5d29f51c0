export type TokenClass = 'kw' | 'str' | 'com' | 'num';
export interface Token {
  text: string;
  cls: TokenClass | null;
}

export type Language = 'js' | 'c' | 'go' | 'rust' | 'python' | 'shell' | 'yaml' | 'css' | 'json' | 'plain';

const EXTENSIONS: Record<string, Language> = {
  js: 'js', jsx: 'js', mjs: 'js', cjs: 'js', ts: 'js', tsx: 'js', mts: 'js', cts: 'js',
  c: 'c', h: 'c', cc: 'c', cpp: 'c', hpp: 'c', java: 'c', cs: 'c', kt: 'c', swift: 'c', scala: 'c',
  go: 'go', rs: 'rust', py: 'python', rb: 'python',
  sh: 'shell', bash: 'shell', zsh: 'shell', yml: 'yaml', yaml: 'yaml', toml: 'yaml',
  css: 'css', scss: 'css', less: 'css', json: 'json',
};

export function languageFor(path: string): Language {
  const base = path.split('/').pop() ?? path;
  if (base === 'Dockerfile' || base === 'Makefile') return 'shell';
  const dot = base.lastIndexOf('.');
  return dot < 0 ? 'plain' : (EXTENSIONS[base.slice(dot + 1).toLowerCase()] ?? 'plain');
}

const words = (list: string) => new Set(list.split(' '));
const KEYWORDS: Record<Language, Set<string>> = {
  js: words(
    'abstract as async await break case catch class const continue debugger default delete do else enum export extends false finally for from function get if implements import in instanceof interface let new null of private protected public readonly return satisfies set static super switch this throw true try type typeof undefined var void while with yield',
  ),
  c: words('auto break case catch char class const continue default do double else enum extends final float for if implements import int long new null private protected public return short static struct super switch this throw true false try typedef union unsigned void volatile while'),
  go: words('break case chan const continue default defer else fallthrough for func go goto if import interface map nil package range return select struct switch true false type var'),
  rust: words('as async await break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while'),
  python: words('and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield'),
  shell: words('case do done elif else esac export fi for function if in local return then until while'),
  yaml: words('true false null yes no on off'),
  css: words('important media import supports keyframes'),
  json: words('true false null'),
  plain: new Set(),
};

const HASH_COMMENTS = new Set<Language>(['python', 'shell', 'yaml']);
const SLASH_COMMENTS = new Set<Language>(['js', 'c', 'go', 'rust', 'css']);

function tokenPattern(language: Language): RegExp {
  const parts: string[] = [];
  if (SLASH_COMMENTS.has(language)) parts.push('(?<com>//.*|/\\*.*?(?:\\*/|$))');
  if (HASH_COMMENTS.has(language)) parts.push('(?<hash>#.*)');
  parts.push('(?<str>"(?:[^"\\\\]|\\\\.)*"?|\'(?:[^\'\\\\]|\\\\.)*\'?|`(?:[^`\\\\]|\\\\.)*`?)');
  parts.push('(?<num>\\b(?:0[xX][0-9a-fA-F]+|\\d[\\d_]*(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)\\b)');
  parts.push('(?<word>[A-Za-z_$][\\w$]*)');
  return new RegExp(parts.join('|'), 'g');
}

const PATTERNS = new Map<Language, RegExp>();

/** Tokens of one line: keywords, strings, comments and numbers; everything else is plain. */
export function highlightLine(text: string, language: Language): Token[] {
  if (language === 'plain' || text.length > 2000) return [{ text, cls: null }];
  let pattern = PATTERNS.get(language);
  if (!pattern) {
    pattern = tokenPattern(language);
    PATTERNS.set(language, pattern);
  }
  const keywords = KEYWORDS[language];
  const tokens: Token[] = [];
  let plainStart = 0;
  const push = (end: number, matchText: string, cls: TokenClass | null) => {
    if (end > plainStart) tokens.push({ text: text.slice(plainStart, end), cls: null });
    tokens.push({ text: matchText, cls });
  };
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const groups = match.groups ?? {};
    const value = match[0];
    if (value === '') {
      pattern.lastIndex++;
      continue;
    }
    let cls: TokenClass | null = null;
    if (groups.com !== undefined || groups.hash !== undefined) cls = 'com';
    else if (groups.str !== undefined) cls = 'str';
    else if (groups.num !== undefined) cls = 'num';
    else if (groups.word !== undefined && keywords.has(value)) cls = 'kw';
    if (cls === null) continue; // plain words stay part of the surrounding plain run
    push(match.index, value, cls);
    plainStart = match.index + value.length;
  }
  if (plainStart < text.length) tokens.push({ text: text.slice(plainStart), cls: null });
  return tokens;
}
