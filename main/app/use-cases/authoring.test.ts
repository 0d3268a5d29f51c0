import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/errors';
import { planAuthoring } from './authoring';
import { useCaseHarness } from './test-support';

describe('making plans', () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  it('makes a queued plan from a plan file’s text, and an agent plan records the model its settings name', () => {
    h = useCaseHarness();
    const authoring = planAuthoring(h.ctx);
    expect(() => authoring.createFromContent({ content: 'name: x\n' }, h.root)).toThrow(ValidationError);
    const scripted = h.createPlan({ steps: 1 });
    expect(scripted).toMatchObject({ phase: 'strategize', processingState: 'queued', projectPath: h.project });
    expect(scripted.agent ?? null).toBeNull();
    expect(authoring.planModel(scripted)).toBeNull();
    authoring.updateSettings({ model: 'openai-compatible:qwen-test', baseUrl: 'http://127.0.0.1:9/v1' });
    const agent = authoring.createFromContent({ content: `name: agent\nproject: ${JSON.stringify(h.project)}\nagent: true\ndefinitionOfDone:\n  - Write a licence\n` }, h.root);
    expect(agent.agent?.model).toBe('openai-compatible:qwen-test');
    expect(authoring.planModel(agent)).toMatchObject({ model: 'openai-compatible:qwen-test' });
  });
});
