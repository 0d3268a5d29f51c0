import { useEffect, useState, type FormEvent } from 'react';
import type { AcpAgentRow } from '../../../shared/acp';
import { useAppStore } from '../store/react';

/** KEY=VALUE pairs or HOST:PORT entries typed in one field, separated by spaces. */
const words = (text: string) => text.split(/\s+/).filter(Boolean);

/** Whether it starts, as `agents acp list` says it: the version its initialize reported and its modes, or why not. */
function agentState(agent: AcpAgentRow): string {
  if (!agent.installed) return `Not installed: ${agent.problem ?? ''}`;
  if (!agent.starts) return `Does not start: ${agent.problem ?? ''}`;
  return `Starts: ${agent.version ?? 'no version reported'}; modes: ${agent.modes.join(', ') || 'none'}`;
}

/**
 * The coding agents a plan may run over the Agent Client Protocol, as `agents acp list` shows them
 * (each started once by the host), added and removed as `agents acp add|remove` do. Environment
 * values go to the host and never come back: only their names are listed.
 */
export function AcpAgents() {
  const agents = useAppStore((s) => s.acpAgents);
  const busy = useAppStore((s) => s.acpAgentsBusy);
  const error = useAppStore((s) => s.acpAgentsError);
  const load = useAppStore((s) => s.loadAcpAgents);
  const add = useAppStore((s) => s.addAcpAgent);
  const remove = useAppStore((s) => s.removeAcpAgent);
  const [name, setName] = useState('');
  const [commandLine, setCommandLine] = useState('');
  const [env, setEnv] = useState('');
  const [hosts, setHosts] = useState('');
  // Checked each time Settings opens: an agent installed or removed since shows as it is now.
  useEffect(() => void load(), [load]);

  const onAdd = async (event: FormEvent) => {
    event.preventDefault();
    if (await add({ name: name.trim(), commandLine: commandLine.trim(), env: words(env), allowHosts: words(hosts) })) {
      setName('');
      setCommandLine('');
      setEnv('');
      setHosts('');
    }
  };
  return (
    <section className="settings-acp" aria-labelledby="settings-acp-title">
      <h3 id="settings-acp-title">Coding agents</h3>
      <p className="muted settings-note">
        Agents a plan may run over the Agent Client Protocol (<code>agent: {'{ acp: NAME }'}</code> in its plan file). Each is started once here to check it.
      </p>
      {busy && (
        <p role="status" className="muted">
          Starting each agent to check it…
        </p>
      )}
      {agents && agents.length > 0 && (
        <ul className="settings-mcp-list" aria-label="Coding agents">
          {agents.map((agent) => (
            <li key={agent.name}>
              <code>{agent.name}</code>
              {agent.builtin && <span className="muted"> (built in)</span>} <span className="muted">{agent.summary ?? 'not installed'}</span>{' '}
              {!agent.builtin && (
                <button type="button" className="button small" aria-label={`Remove agent ${agent.name}`} disabled={busy} onClick={() => void remove(agent.name)}>
                  Remove
                </button>
              )}
              <br />
              <span className={agent.starts ? 'muted' : agent.builtin ? 'muted' : 'inline-error'}>{agentState(agent)}</span>
            </li>
          ))}
        </ul>
      )}
      <form className="settings-form" onSubmit={(e) => void onAdd(e)}>
        <label htmlFor="settings-acp-name">Agent name</label>
        <input id="settings-acp-name" className="input" value={name} placeholder="myqwen" onChange={(e) => setName(e.currentTarget.value)} />
        <label htmlFor="settings-acp-command">Agent command line</label>
        <input id="settings-acp-command" className="input" value={commandLine} placeholder="qwen --acp" onChange={(e) => setCommandLine(e.currentTarget.value)} />
        <label htmlFor="settings-acp-env">Agent environment</label>
        <input
          id="settings-acp-env"
          className="input"
          type="password"
          autoComplete="off"
          value={env}
          aria-describedby="settings-acp-env-note"
          placeholder="OPENAI_BASE_URL=http://127.0.0.1:8000/v1 OPENAI_API_KEY=sk-..."
          onChange={(e) => setEnv(e.currentTarget.value)}
        />
        <p id="settings-acp-env-note" className="muted settings-note">
          KEY=VALUE pairs separated by spaces. The values are secrets: kept in the settings, never shown again.
        </p>
        <label htmlFor="settings-acp-hosts">Agent allowed hosts</label>
        <input id="settings-acp-hosts" className="input" value={hosts} placeholder="api.example.com:443" onChange={(e) => setHosts(e.currentTarget.value)} />
        <div className="settings-actions">
          <button type="submit" className="button" disabled={busy || !name.trim() || !commandLine.trim()}>
            Add agent
          </button>
        </div>
      </form>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
