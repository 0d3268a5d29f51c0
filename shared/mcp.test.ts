import { describe, expect, it } from 'vitest';
import { BUILTIN_PROFILES, needsApproval, resolveProfile } from './profiles';
import { allowedByName, describeMcpServer, McpConfigSchema, type McpServer, mcpNeedsApproval, shownArgs, shownUrl, withMcpHidden, withoutMcpSecrets } from './mcp';

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

describe('what of a server is shown', () => {
  it("hides a URL's user, query values and token-like path segments, keeping its scheme, host, port and plain path", () => {
    expect(shownUrl('http://u:PASSWD@127.0.0.1:9/s/PATHTOKEN/mcp?k=QSECRET')).toBe('http://(set)@127.0.0.1:9/s/(hidden)/mcp?k=(set)');
    expect(shownUrl('https://mcp.example.com/v1/mcp')).toBe('https://mcp.example.com/v1/mcp');
    // A long or mixed segment, a UUID, and whatever follows a segment named like a key.
    expect(shownUrl('https://actions.example.com/mcp/sk-ak-9f8e7d6c5b4a/sse')).toBe('https://actions.example.com/mcp/(hidden)/sse');
    expect(shownUrl('https://mcp.example.net/3f2b8c1e-1111-4a2b-9c3d-0123456789ab/github')).toBe('https://mcp.example.net/(hidden)/github');
    expect(shownUrl('https://h.example/token/abc/mcp#frag')).toBe('https://h.example/token/(hidden)/mcp');
  });

  it('hides the values of key-like flags and pairs in the arguments, and a URL argument as a URL', () => {
    expect(
      shownArgs(['--token', 'ARGSECRET', '--api-key=K1', 'GITHUB_TOKEN=ghp_x', 'clientSecret=S', '--header', 'Authorization: Bearer xyz', 'https://u:p@h.example/mcp?key=Q', '--port', '8080', '.']),
    ).toEqual(['--token', '(set)', '--api-key=(set)', 'GITHUB_TOKEN=(set)', 'clientSecret=(set)', '--header', 'Authorization: (set)', 'https://(set)@h.example/mcp?key=(set)', '--port', '8080', '.']);
    // Words that merely contain a key-like one are not secrets.
    expect(shownArgs(['--keyboard', 'us', '--tokens', '100', 'run', 'Bearer abc'])).toEqual(['--keyboard', 'us', '--tokens', '100', 'run', 'Bearer (set)']);
    expect(describeMcpServer({ command: 'mcp-tracker', args: ['--token', 'ARGSECRET'], env: { K: 'v' } })).toBe('mcp-tracker --token (set) (env: K)');
    expect(describeMcpServer({ url: 'http://u:PASSWD@127.0.0.1:9/s/PATHTOKEN/mcp?k=QSECRET', headers: { H: 'v' } })).toBe('http://(set)@127.0.0.1:9/s/(hidden)/mcp?k=(set) (headers: H)');
  });

  it("takes a server's secrets out of an error, the URL shown as scheme://host:port/path", () => {
    const remote: McpServer = { url: 'http://u:PASSWD@127.0.0.1:9/s/PATHTOKEN/mcp?k=QSECRET', headers: { Authorization: 'Bearer HEADERSECRET' } };
    // The error fetch gives for a URL with credentials, and what a server may echo back.
    expect(withoutMcpSecrets('Request cannot be constructed from a URL that includes credentials: http://u:PASSWD@127.0.0.1:9/s/PATHTOKEN/mcp?k=QSECRET', remote)).toBe(
      'Request cannot be constructed from a URL that includes credentials: http://(set)@127.0.0.1:9/s/(hidden)/mcp?k=(set)',
    );
    expect(withoutMcpSecrets('HTTP 401: no access to http://127.0.0.1:9/s/PATHTOKEN/mcp?k=QSECRET for u:PASSWD with Bearer HEADERSECRET', remote)).toBe(
      'HTTP 401: no access to http://(set)@127.0.0.1:9/s/(hidden)/mcp?k=(set) for u:(hidden) with (hidden)',
    );
    const local: McpServer = { command: 'mcp-tracker', args: ['--token', 'ARGSECRET', '.'], env: { API_KEY: 'ENVSECRET', LEVEL: '1' } };
    expect(withoutMcpSecrets('it said: bad key ENVSECRET (ARGSECRET) at level 1', local)).toBe('it said: bad key (hidden) ((hidden)) at level 1');
  });

  it('shows a plan file\'s servers in a response without a secret from the path or the arguments', () => {
    const plan = {
      mcp: {
        servers: {
          remote: { url: 'http://u:PASSWD@127.0.0.1:9/s/PATHTOKEN/mcp?k=QSECRET', headers: {} },
          local: { command: 'mcp-tracker', args: ['--token', 'ARGSECRET'], env: {} },
        },
      },
    };
    const text = JSON.stringify(withMcpHidden({ plans: [plan] }));
    for (const secret of ['PASSWD', 'PATHTOKEN', 'QSECRET', 'ARGSECRET']) expect(text).not.toContain(secret);
    expect(withMcpHidden(plan).mcp.servers.local.args).toEqual(['--token', '(set)']);
  });
});
