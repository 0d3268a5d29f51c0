/** See demo-plans.cjs. */
export declare function demoPlanLine(file: string, created: { status: number | null; stdout: string; stderr: string }): string;
