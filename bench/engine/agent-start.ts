import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Benchmark, BenchResult } from '../bench-result';
import { type AgentProcessRequest, type ConfinedAgentProcess, startConfinedAgent, startUnconfinedAgent } from '../../main/engine/tools/agent-process';
import { detectConfinement } from '../../main/engine/tools/confinement';
import { paired, ratioFigure, scratchDir } from './util';

const REPS = Number(process.env.BENCH_AGENT_REPS ?? 11);
const BUDGET = 3;

/** An agent's first sign of life: one model call, then a line on stdout. */
const AGENT = `const r = await fetch(process.env.MODEL_BASE_URL); console.log(await r.text());`;

/** Milliseconds from asking for the agent to its first line; the process is then ended. */
async function firstLineMs(start: () => Promise<ConfinedAgentProcess>): Promise<number> {
  const started = performance.now();
  const agent = await start();
  try {
    await new Promise<void>((resolve, reject) => {
      agent.child.stdout.once('data', () => resolve());
      void agent.exited.then((exit) => reject(new Error(`agent start: the agent exited first (${JSON.stringify(exit)})`)));
    });
    return performance.now() - started;
  } finally {
    await agent.dispose();
  }
}

export const agentStartBenchmark: Benchmark = {
  name: 'agent start',
  async run(): Promise<BenchResult[]> {
    const probe = await detectConfinement(); // once per process, as the engine does
    if (!probe.ok) throw new Error(`agent start: no confinement here (${probe.reason})`);
    const scratch = scratchDir('agent');
    const model = createServer((_req, res) => res.end('ready'));
    await new Promise<void>((resolve) => model.listen(0, '127.0.0.1', resolve));
    try {
      const script = path.join(scratch.dir, 'install', 'agent.mjs');
      mkdirSync(path.dirname(script));
      mkdirSync(path.join(scratch.dir, 'sandbox'));
      writeFileSync(script, AGENT);
      const port = (model.address() as AddressInfo).port;
      const request: AgentProcessRequest = {
        file: process.execPath,
        args: [script],
        env: { MODEL_BASE_URL: `http://127.0.0.1:${port}/` },
        sandboxRoot: path.join(scratch.dir, 'sandbox'),
        home: path.join(scratch.dir, 'home'),
        readOnlyPaths: [],
        allowHosts: [`127.0.0.1:${port}`],
        allowNetwork: false,
      };
      const runs = await paired(
        REPS,
        () => firstLineMs(() => startConfinedAgent(request)),
        () => firstLineMs(() => startUnconfinedAgent(request)),
      );
      const { ratio, figure, details } = ratioFigure(runs);
      return [{ name: 'agent start, confined with one allowed port', figure, budget: `<= ${BUDGET}x unconfined`, pass: ratio <= BUDGET, details }];
    } finally {
      model.close();
      scratch.cleanup();
    }
  },
};
