import { describe, expect, it } from 'vitest';
import { makeApproval, makePlan } from '../test-support/fake-bridge';
import { render } from '../test-support/render';
import { testRuntime } from '../test-support/runtime';
import { ApprovalCard } from './ApprovalCard';

const waiting = makePlan({ processingState: 'paused', waitingFor: 'approval' });

describe('the approval card for a step out of budget', () => {
  it('asks for more turns with an amount to change, and offers no Approve all', () => {
    const { store } = testRuntime();
    const rationale = 'Step "Write NOTES.md" used its 3 turns; allow 3 more?';
    store.setState({ pendingApproval: makeApproval('A1', { kind: 'budget', tool: null, args: { limit: 'turns', used: 3, more: 3 }, description: 'Write NOTES.md', rationale }), approvalsStatus: 'loaded' });
    const html = render(store, <ApprovalCard plan={waiting} />);
    expect(html).toContain('Approval needed: more turns for the step');
    expect(html).toContain('used its 3 turns; allow 3 more?');
    expect(html).toMatch(/<label for="approval-more">More turns<\/label> <input id="approval-more"[^>]*placeholder="3"/);
    expect(html).toContain('Allow 3 more turns</button>');
    expect(html).not.toContain('Approve all');
    expect(html).not.toContain('<dl');
    expect(html).toMatch(/<button type="button" class="button primary"[^>]*>Allow 3 more turns<\/button>/);
    expect(html).not.toMatch(/<button type="button" class="button primary" disabled/);
  });
});

describe('the approval card for a plan over its cost budget', () => {
  it('asks for more US dollars, in cents, for the plan', () => {
    const { store } = testRuntime();
    const rationale = 'The plan has cost $2.51 of its $2.50; allow $2.50 more?';
    const args = { limit: 'costUsd', used: 2.51, max: 2.5, more: 2.5 };
    store.setState({ pendingApproval: makeApproval('A1', { kind: 'budget', tool: null, args, description: 'Write NOTES.md', rationale }), approvalsStatus: 'loaded' });
    const html = render(store, <ApprovalCard plan={waiting} />);
    expect(html).toContain('Approval needed: more US dollars for the plan');
    expect(html).toContain('The plan has cost $2.51 of its $2.50; allow $2.50 more?');
    expect(html).toMatch(/<label for="approval-more">More US dollars<\/label> <input id="approval-more"[^>]*step="0.01"[^>]*placeholder="2.50"/);
    expect(html).toMatch(/<button type="button" class="button primary"[^>]*>Allow \$2.50 more<\/button>/);
    expect(html).not.toContain('turns');
    expect(html).not.toContain('tokens');
  });
});

describe('the approval card for a call of an MCP server', () => {
  it('names the server and the tool, says what the server says the tool does, and shows the arguments', () => {
    const { store } = testRuntime();
    const mcp = { server: 'files', tool: 'write_file', description: 'Create a new file or overwrite one.', readOnly: false };
    store.setState({ pendingApproval: makeApproval('A1', { tool: 'files.write_file', args: { path: 'NOTES.md', content: '# Notes' }, mcp }), approvalsStatus: 'loaded' });
    const html = render(store, <ApprovalCard plan={waiting} />);
    expect(html).toContain('Approval needed: files.write_file');
    expect(html).toContain('MCP server</span> <code>files</code> · <span class="approval-label">tool</span> <code>write_file</code>');
    expect(html).toContain('<span class="approval-mcp-description">Create a new file or overwrite one.</span>');
    expect(html).toContain('<dt>path</dt><dd><code>NOTES.md</code></dd>');
    expect(html).not.toContain('marked read-only');
    store.setState({ pendingApproval: makeApproval('A1', { tool: 'files.read_file', args: { path: 'a' }, mcp: { ...mcp, tool: 'read_file', readOnly: true } }) });
    expect(render(store, <ApprovalCard plan={waiting} />)).toContain('(marked read-only by its server)');
    // A sandbox tool's card has no MCP line.
    store.setState({ pendingApproval: makeApproval('A1') });
    expect(render(store, <ApprovalCard plan={waiting} />)).not.toContain('data-testid="approval-mcp"');
  });
});

describe('the approval card for a sign-in a plan waits for', () => {
  it('says "Sign in to NAME" with one button that signs in, and no arguments or Approve all', () => {
    const { store } = testRuntime();
    const rationale = 'The MCP server "tracker" needs a sign-in before step "File the bug" can use it: run agents mcp login tracker, or sign in from the console.';
    store.setState({ pendingApproval: makeApproval('A1', { kind: 'signin', tool: 'tracker', args: {}, description: 'Sign in to tracker', rationale }), approvalsStatus: 'loaded' });
    const html = render(store, <ApprovalCard plan={waiting} />);
    expect(html).toContain('<h3 id="approval-title">Sign in to tracker</h3>');
    expect(html).toContain('needs a sign-in before step &quot;File the bug&quot; can use it');
    expect(html).toMatch(/<button type="button" class="button primary"[^>]*title="Open the browser at tracker&#x27;s sign-in page; the step goes on once signed in \(a\)"[^>]*>Sign in to tracker<\/button>/);
    expect(html).not.toContain('Approve all');
    expect(html).not.toContain('<dl');
  });
});
