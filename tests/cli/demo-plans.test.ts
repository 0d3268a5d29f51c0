import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoPlanLine } from '../../scripts/demo-plans.cjs';
import { agents, sandboxWorkspace } from './cli-harness';

// A first `npm start` creates the demo plans with no model configured: the agent plans need one.
describe('npm start on the demo plans', () => {
  it('lists an agent plan as needing a model, and a scripted one by its id', async () => {
    const { home, examples } = sandboxWorkspace();
    const noModel = { AGENTS_MODEL: '', AGENTS_BASE_URL: '', AGENTS_API_KEY: '' };
    const agent = await agents(['plan', 'create', join(examples, 'agent-changelog.yaml')], home, noModel);
    expect(agent.code).toBe(2);
    expect(demoPlanLine('agent-changelog.yaml', { status: agent.code, stdout: agent.stdout, stderr: agent.stderr })).toBe(
      'demo plan agent-changelog.yaml: needs a model: open Settings in the console (or set AGENTS_MODEL), then create it',
    );
    const scripted = await agents(['plan', 'create', join(examples, 'add-license.yaml')], home, noModel);
    expect(demoPlanLine('add-license.yaml', { status: scripted.code, stdout: scripted.stdout, stderr: scripted.stderr })).toMatch(/^demo plan add-license\.yaml: [0-9A-Z]{26}$/);
    expect(demoPlanLine('x.yaml', { status: 2, stdout: '', stderr: 'error: project: not found' })).toBe('demo plan x.yaml not created: error: project: not found');
  });
});
