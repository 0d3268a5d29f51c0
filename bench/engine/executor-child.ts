import { contents, engineRun } from './executor';

/** `node --import tsx bench/engine/executor-child.ts CALLS`: one engine run; prints its peak RSS as JSON. */
async function main(): Promise<void> {
  const calls = Number(process.argv[2]);
  const { events } = await engineRun(contents(calls));
  process.stdout.write(`${JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS, events })}\n`);
}

void main();
