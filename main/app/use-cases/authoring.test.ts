import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../../shared/errors';
import { planAuthoring } from './authoring';
import { useCaseHarness } from './test-support';

describe('making plans', () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  it('makes a queued plan from a plan file’s text, and an agent plan records the model its settings name', async () => {
    h = useCaseHarness();
    const authoring = planAuthoring(h.ctx);
    await expect(authoring.createFromContent({ content: 'name: x\n' }, h.root)).rejects.toThrow(ValidationError);
    const scripted = await h.createPlan({ steps: 1 });
    expect(scripted).toMatchObject({ phase: 'strategize', processingState: 'queued', projectPath: h.project });
    expect(scripted.agent ?? null).toBeNull();
    expect(authoring.planModel(scripted)).toBeNull();
    authoring.updateSettings({ model: 'openai-compatible:qwen-test', baseUrl: 'http://127.0.0.1:9/v1' });
    const agent = await authoring.createFromContent({ content: `name: agent\nproject: ${JSON.stringify(h.project)}\nagent: true\ndefinitionOfDone:\n  - Write a licence\n` }, h.root);
    expect(agent.agent?.model).toBe('openai-compatible:qwen-test');
    expect(authoring.planModel(agent)).toMatchObject({ model: 'openai-compatible:qwen-test' });
  });
});

describe("the console's MCP servers", () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  it('adds a command line split as the shell would, and a URL, lists them without secrets, and removes one', async () => {
    h = useCaseHarness();
    const authoring = planAuthoring(h.ctx);
    expect(authoring.mcpServersView()).toEqual({ servers: [] });
    await authoring.addMcpServer({ name: 'files', commandLine: `npx mcp-server-filesystem 'my project'` });
    const listed = await authoring.addMcpServer({ name: 'tracker', url: 'https://bot:pw@mcp.example.com/mcp' });
    expect(listed.servers).toEqual([
      { name: 'files', summary: 'npx mcp-server-filesystem my project', local: true },
      { name: 'tracker', summary: 'https://(set)@mcp.example.com/mcp', local: false },
    ]);
    // settings.json keeps what runs: the words as the shell splits them.
    expect(h.ctx.options.settings.read().mcp?.servers.files).toMatchObject({ command: 'npx', args: ['mcp-server-filesystem', 'my project'] });
    expect(authoring.removeMcpServer('files').servers.map((s) => s.name)).toEqual(['tracker']);
  });

  it('refuses a pipe, a variable, a relative path, a bad name and an unknown server, and changes nothing', async () => {
    h = useCaseHarness();
    const authoring = planAuthoring(h.ctx);
    await expect(authoring.addMcpServer({ name: 'files', commandLine: 'server | tee log' })).rejects.toThrow('command: must be one command, without pipes, variables or substitutions');
    await expect(authoring.addMcpServer({ name: 'files', commandLine: 'server $HOME' })).rejects.toThrow('without pipes, variables');
    await expect(authoring.addMcpServer({ name: 'files', commandLine: './server.js' })).rejects.toThrow('"./server.js" must be a program on PATH or an absolute path');
    await expect(authoring.addMcpServer({ name: 'file', commandLine: 'server' })).rejects.toThrow(ValidationError);
    expect(() => authoring.removeMcpServer('nope')).toThrow('no MCP server "nope"');
    expect(authoring.mcpServersView()).toEqual({ servers: [] });
  });
});
