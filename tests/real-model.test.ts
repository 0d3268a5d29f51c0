import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openApp } from '../main/app/open-app';

/**
 * Runs an agent plan against a real model server, only when one is named:
 *   AGENTS_TEST_BASE_URL=http://127.0.0.1:11434/v1 AGENTS_TEST_MODEL=qwen2.5-coder:7b npx vitest run tests/real-model.test.ts
 * Any OpenAI-compatible server works (Ollama, llama.cpp, vLLM, LM Studio).
 */
const baseUrl = process.env.AGENTS_TEST_BASE_URL;
const model = process.env.AGENTS_TEST_MODEL ?? 'qwen2.5-coder:7b';
const title = baseUrl
  ? `a real model (${model} at ${baseUrl})`
  : 'a real model — skipped: set AGENTS_TEST_BASE_URL (and AGENTS_TEST_MODEL) to run it against a local server such as Ollama';

// The reason shows in every run's output, not only in a verbose report.
if (!baseUrl) console.info(title);

describe.skipIf(!baseUrl)(title, () => {
  it('strategizes and executes a small agent plan through the sandbox tools', { timeout: 600_000 }, async () => {
    const base = mkdtempSync(join(tmpdir(), 'agents-real-model-'));
    const project = join(base, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'README.md'), '# Demo\n');
    const app = await openApp({
      dataDir: join(base, 'home'),
      env: { AGENTS_MODEL: `openai-compatible:${model}`, AGENTS_BASE_URL: baseUrl, AGENTS_API_KEY: process.env.AGENTS_TEST_API_KEY ?? '' },
    });
    try {
      const plan = await app.service.createFromContent(
        {
          content: `name: real-model\nproject: ${JSON.stringify(project)}\nautomationProfile: { base: full-auto, allowShell: false }\nagent: { maxTurnsPerStep: 15 }\ndefinitionOfDone: The file hello.txt exists and contains the word hello\n`,
        },
        base,
      );
      const done = await app.service.run(plan.id);
      expect(done.processingState, done.errorMessage ?? '').toBe('queued');
      expect(done.phase).toBe('apply');
      const hello = (await app.service.changeEntries(plan.id)).find((e) => e.path === 'hello.txt');
      expect(hello?.afterText?.toLowerCase()).toContain('hello');
      expect(done.usage?.outputTokens).toBeGreaterThan(0);
    } finally {
      app.close();
    }
  });
});
