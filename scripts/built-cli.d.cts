/** See built-cli.cjs. */
export declare const BUILT_CLI: string;
export declare function freshBuiltCli(): string | null;
