// The part of mvdan-sh (the Go mvdan.cc/sh/v3/syntax package compiled to JS) the shell analysis
// uses; the package ships no typings. Field names are the Go ones.
declare module 'mvdan-sh' {
  export namespace syntax {
    interface Pos {
      Offset(): number;
    }
    interface Node {
      Pos(): Pos;
      End(): Pos;
    }
    interface Word extends Node {
      Parts: WordPart[];
    }
    /** Lit, SglQuoted, DblQuoted, ParamExp, CmdSubst, ArithmExp, ProcSubst, ExtGlob, BraceExp. */
    interface WordPart extends Node {
      /** Lit and SglQuoted: the text as written, escapes included. */
      Value?: string;
      /** SglQuoted and DblQuoted: `$'…'` and `$"…"`. */
      Dollar?: boolean;
      /** DblQuoted: its parts. */
      Parts?: WordPart[];
    }
    interface Redirect extends Node {
      OpPos: Pos;
      Word: Word | null;
      /** The body of a here-document. */
      Hdoc: Word | null;
    }
    interface CallExpr extends Node {
      Args: Word[];
    }
    interface Stmt extends Node {
      Cmd: Node | null;
      Redirs: Redirect[];
    }
    interface File extends Node {
      Stmts: Stmt[];
    }
    interface ParseError {
      Error(): string;
    }
    interface Parser {
      /** Throws a ParseError. */
      Parse(src: string, name: string): File;
    }
    function NewParser(...options: unknown[]): Parser;
    function NodeType(node: Node): string;
    function Walk(node: Node, visit: (node: Node | null) => boolean): void;
  }
  const sh: { syntax: typeof syntax };
  export default sh;
}
