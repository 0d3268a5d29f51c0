import type { Benchmark } from './bench-result';
import { consoleBenchmark } from './console/console-bench';
import { eventStreamBenchmark } from './console/stream-bench';
import { toolCallBenchmark } from './console/tool-call-bench';
import { acpCaptureBenchmark } from './engine/acp-capture';
import { acpTurnBenchmark } from './engine/acp-turn';
import { agentStartBenchmark } from './engine/agent-start';
import { checkpointBenchmark, rewindBenchmark } from './engine/checkpoints';
import { cliStartBenchmark } from './engine/cli-start';
import { diffBenchmark } from './engine/diff';
import { executorBenchmark } from './engine/executor';
import { forkBenchmark } from './engine/fork';
import { sandboxBenchmark } from './engine/sandbox';
import { searchBenchmark } from './engine/search';
import { storeBenchmark } from './engine/store';
import { queuePickupBenchmark } from './team/queue-pickup';
import { teamThroughputBenchmark } from './team/throughput';
import { tracesBenchmark } from './engine/traces';

/** Every benchmark `npm run bench` runs, in order. */
export const benchmarks: Benchmark[] = [executorBenchmark, tracesBenchmark, diffBenchmark, sandboxBenchmark, searchBenchmark, storeBenchmark, checkpointBenchmark, rewindBenchmark, forkBenchmark, cliStartBenchmark, agentStartBenchmark, acpCaptureBenchmark, acpTurnBenchmark, consoleBenchmark, eventStreamBenchmark, toolCallBenchmark, queuePickupBenchmark, teamThroughputBenchmark];
