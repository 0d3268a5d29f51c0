import { describe, expect, it } from 'vitest';
import { BUILTIN_PROFILES, needsApproval, resolveProfile } from './domain';
import { allowedByName, McpConfigSchema, mcpNeedsApproval, withMcpHidden } from './mcp';

describe('which MCP calls wait for the operator', () => {
  it('every one, under every profile but full-auto, unless the profile allows it by name', () => {
    for (const name of ['manual', 'restricted', 'supervised', 'trusted'] as const) {
      expect(mcpNeedsApproval(BUILTIN_PROFILES[name], 'files.write_file', false), name).toBe(true);
      // Marked read-only by its server: still asked, unless the profile says so.
      expect(mcpNeedsApproval(BUILTIN_PROFILES[name], 'files.read_file', true), name).toBe(true);
    }
    expect(mcpNeedsApproval(BUILTIN_PROFILES['full-auto'], 'files.write_file', false)).toBe(false);
    const allowing = resolveProfile({ base: 'supervised', allow: ['files.*', 'tracker.search'] });
    expect(mcpNeedsApproval(allowing, 'files.write_file', false)).toBe(false);
    expect(mcpNeedsApproval(allowing, 'tracker.search', false)).toBe(false);
    expect(mcpNeedsApproval(allowing, 'tracker.create_issue', false)).toBe(true);
    expect(mcpNeedsApproval(allowing, 'filesystem.write_file', false)).toBe(true);
    const readOnly = resolveProfile({ base: 'supervised', allowReadOnlyMcp: true });
    expect(mcpNeedsApproval(readOnly, 'files.read_file', true)).toBe(false);
    expect(mcpNeedsApproval(readOnly, 'files.write_file', false)).toBe(true);
  });

  it('allow: lets a sandbox tool through too, where approve: would ask', () => {
    const profile = resolveProfile({ base: 'supervised', allow: ['shell.run'] });
    expect(needsApproval(profile, 'shell.run')).toBe(false);
    expect(needsApproval(profile, 'file.delete')).toBe(true);
    expect(allowedByName(['a.*'], 'ab.x')).toBe(false);
  });
});

describe('mcp: in a plan file or settings.json', () => {
  it('takes local and remote servers, and names what is wrong with a bad entry', () => {
    expect(McpConfigSchema.parse({ servers: { files: { command: 'x' }, tracker: { url: 'https://t.example/mcp' } } })).toEqual({
      servers: { files: { command: 'x', args: [], env: {} }, tracker: { url: 'https://t.example/mcp', headers: {} } },
    });
    const bad = (servers: unknown) => McpConfigSchema.safeParse({ servers }).error?.issues[0];
    expect(bad({ 'my files': { command: 'x' } })?.message).toMatch(/must be a simple identifier/);
    expect(bad({ file: { command: 'x' } })?.message).toMatch(/must not be file or shell/);
    expect(bad({ files: { command: 'x', url: 'https://t' } })?.message).toMatch(/either command .* or url/);
    expect(bad({ files: {} })?.message).toMatch(/either command .* or url/);
  });
});

describe('withMcpHidden', () => {
  it("shows a plan's servers with their environment, header values and a URL's credentials and query hidden", () => {
    const plan = {
      id: 'P1',
      mcp: {
        servers: {
          files: { command: 'mcp-files', args: ['.'], env: { TOKEN: 'sk-secret' } },
          tracker: { url: 'https://bot:pw@mcp.example.com/mcp?token=abc', headers: { Authorization: 'Bearer xyz' } },
        },
      },
    };
    const text = JSON.stringify([withMcpHidden(plan), withMcpHidden({ plan }), withMcpHidden({ plans: [plan] })]);
    for (const secret of ['sk-secret', 'Bearer xyz', 'abc', 'pw@', 'bot:']) expect(text).not.toContain(secret);
    expect(withMcpHidden({ plan }).plan.mcp.servers).toEqual({
      files: { command: 'mcp-files', args: ['.'], env: { TOKEN: '(set)' } },
      tracker: { url: 'https://(set)@mcp.example.com/mcp?token=(set)', headers: { Authorization: '(set)' } },
    });
    // The plan itself keeps them: the run needs them.
    expect(plan.mcp.servers.files.env.TOKEN).toBe('sk-secret');
    expect(withMcpHidden({ files: [] })).toEqual({ files: [] });
  });
});
