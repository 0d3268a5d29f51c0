import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { SettingsPatch, SettingsView } from '../../../shared/agent';
import { useDialogFocus } from '../components/use-dialog-focus';
import { useAppStore } from '../store/react';
import { NotifySettings } from '../notify/NotifySettings';
import { AcpAgents } from './AcpAgents';

/** The MCP servers every agent plan may use: listed by name and command (never a secret value), added and removed here as `agents mcp` does. */
function McpServers() {
  const servers = useAppStore((s) => s.mcpServers);
  const error = useAppStore((s) => s.mcpError);
  const add = useAppStore((s) => s.addMcpServer);
  const remove = useAppStore((s) => s.removeMcpServer);
  const [name, setName] = useState('');
  const [target, setTarget] = useState('');
  const onAdd = async (event: FormEvent) => {
    event.preventDefault();
    const value = target.trim();
    const isUrl = /^https?:\/\//.test(value);
    if (await add({ name: name.trim(), ...(isUrl ? { url: value } : { commandLine: value }) })) {
      setName('');
      setTarget('');
    }
  };
  return (
    <section className="settings-mcp" aria-labelledby="settings-mcp-title">
      <h3 id="settings-mcp-title">MCP servers</h3>
      {servers && servers.length === 0 && <p className="muted">None yet. Their tools are offered to every agent plan, each call approved unless the profile allows it.</p>}
      {servers && servers.length > 0 && (
        <ul className="settings-mcp-list">
          {servers.map((server) => (
            <li key={server.name}>
              <code>{server.name}</code> <span className="muted">{server.summary}</span>{' '}
              <button type="button" className="button small" aria-label={`Remove MCP server ${server.name}`} onClick={() => void remove(server.name)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form className="settings-form" onSubmit={(e) => void onAdd(e)}>
        <label htmlFor="settings-mcp-name">Server name</label>
        <input id="settings-mcp-name" className="input" value={name} placeholder="files" onChange={(e) => setName(e.currentTarget.value)} />
        <label htmlFor="settings-mcp-target">Command line or URL</label>
        <input
          id="settings-mcp-target"
          className="input"
          value={target}
          placeholder="npx mcp-server-filesystem . or https://mcp.example.com/mcp"
          onChange={(e) => setTarget(e.currentTarget.value)}
        />
        <div className="settings-actions">
          <button type="submit" className="button" disabled={!name.trim() || !target.trim()}>
            Add MCP server
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

/** The base URL requests go to, and where it comes from: the environment wins over the settings. */
function baseUrlInEffect(settings: SettingsView): string {
  const url = settings.effective.baseUrl;
  if (url === null) return "base URL the provider's default";
  return `base URL ${url} (${url === settings.baseUrl ? SOURCE.settings : SOURCE.env})`;
}

const SOURCE = { env: 'from the environment', settings: 'from these settings', none: 'not set' } as const;

/** The model settings. The API key goes to the host and never comes back: the field only says whether one is set. */
export function SettingsSheet() {
  const open = useAppStore((s) => s.settingsOpen);
  const setOpen = useAppStore((s) => s.setSettingsOpen);
  const settings = useAppStore((s) => s.settings);
  const error = useAppStore((s) => s.settingsError);
  const save = useAppStore((s) => s.saveSettings);
  const closeRef = useRef<HTMLButtonElement>(null);
  const [model, setModel] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [priceIn, setPriceIn] = useState('');
  const [priceOut, setPriceOut] = useState('');
  const [database, setDatabase] = useState('');
  const [operator, setOperator] = useState('');
  const [saved, setSaved] = useState(false);

  useDialogFocus(open, closeRef);
  useEffect(() => {
    setModel(settings?.model ?? '');
    setBaseUrl(settings?.baseUrl ?? '');
    setPriceIn(settings?.price ? String(settings.price.inputPerMTok) : '');
    setPriceOut(settings?.price ? String(settings.price.outputPerMTok) : '');
    setOperator(settings?.operator ?? '');
  }, [settings]);

  if (!open) return null;
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const patch: SettingsPatch = { model: model.trim(), baseUrl: baseUrl.trim() };
    if (apiKey) patch.apiKey = apiKey;
    patch.price = priceIn.trim() || priceOut.trim() ? { inputPerMTok: Number(priceIn) || 0, outputPerMTok: Number(priceOut) || 0 } : null;
    // Like the key, the database URL (it may hold a password) is sent when typed and never shown back unmasked.
    if (database.trim()) patch.database = database.trim();
    patch.operator = operator.trim();
    const ok = await save(patch);
    setSaved(ok);
    if (ok) {
      setApiKey('');
      setDatabase('');
    }
  };
  const onClose = () => {
    setSaved(false);
    setOpen(false);
  };

  return (
    <div className="sheet-backdrop" onClick={onClose}>
      <div className="sheet settings-sheet" role="dialog" aria-modal="true" aria-labelledby="settings-title" aria-describedby="settings-holds" onClick={(e) => e.stopPropagation()} onKeyDown={(e) => e.key === 'Escape' && onClose()}>
        <div className="sheet-head">
          <h2 id="settings-title">Settings</h2>
          <button ref={closeRef} type="button" className="button small" aria-label="Close settings" onClick={onClose}>
            Close
          </button>
        </div>
        <p id="settings-holds" className="muted settings-holds">
          The model and its server, the team database, your operator name, and the MCP servers agent plans may call.
        </p>
        <form className="settings-form" onSubmit={(e) => void onSubmit(e)}>
          <label htmlFor="settings-model">Model (provider:model)</label>
          <input id="settings-model" className="input" value={model} placeholder="ollama:qwen2.5-coder" onChange={(e) => setModel(e.currentTarget.value)} />
          <label htmlFor="settings-base-url">Base URL</label>
          <input id="settings-base-url" className="input" value={baseUrl} placeholder="http://127.0.0.1:11434/v1" onChange={(e) => setBaseUrl(e.currentTarget.value)} />
          <label htmlFor="settings-api-key">API key</label>
          <input
            id="settings-api-key"
            className="input"
            type="password"
            autoComplete="off"
            value={apiKey}
            placeholder={settings?.apiKeySet ? 'A key is set; type to replace it' : 'No key is set'}
            onChange={(e) => setApiKey(e.currentTarget.value)}
          />
          <label htmlFor="settings-price-in">Price per million input tokens</label>
          <input id="settings-price-in" className="input" inputMode="decimal" value={priceIn} onChange={(e) => setPriceIn(e.currentTarget.value)} />
          <label htmlFor="settings-price-out">Price per million output tokens</label>
          <input id="settings-price-out" className="input" inputMode="decimal" value={priceOut} onChange={(e) => setPriceOut(e.currentTarget.value)} />
          <label htmlFor="settings-database">Team database</label>
          <input
            id="settings-database"
            className="input"
            type="password"
            autoComplete="off"
            value={database}
            aria-describedby="settings-database-note"
            placeholder={settings?.database ? 'Type a URL to replace it' : 'postgresql://user:password@host:5432/agents'}
            onChange={(e) => setDatabase(e.currentTarget.value)}
          />
          <p id="settings-database-note" className="muted settings-note">
            {settings?.database ? `Set: ${settings.database}. ` : 'None: plans live on this machine. '}
            Used from the next start of the console or the app; --database and AGENTS_DATABASE_URL win over it.
          </p>
          <label htmlFor="settings-operator">Operator name</label>
          <input
            id="settings-operator"
            className="input"
            value={operator}
            autoComplete="off"
            placeholder="Your name, as your answers are recorded"
            onChange={(e) => setOperator(e.currentTarget.value)}
          />
          <div className="settings-actions">
            <button type="submit" className="button primary">
              Save settings
            </button>
            {settings?.apiKeySet && (
              <button type="button" className="button" onClick={() => void save({ apiKey: '' })}>
                Remove the API key
              </button>
            )}
            {settings?.database && (
              <button type="button" className="button" onClick={() => void save({ database: '' })}>
                Leave the team database
              </button>
            )}
          </div>
        </form>
        {settings && (
          <p className="muted" data-testid="settings-effective">
            In effect: {settings.effective.model === null ? 'no model' : `model ${settings.effective.model} (${SOURCE[settings.effective.modelSource]})`};{' '}
            {baseUrlInEffect(settings)}; API key {SOURCE[settings.effective.apiKeySource]}. The
            environment (AGENTS_MODEL, AGENTS_BASE_URL, AGENTS_API_KEY) wins over these settings.
          </p>
        )}
        <NotifySettings />
        <McpServers />
        <AcpAgents />
        {saved && !error && (
          <p role="status" className="muted">
            Saved.
          </p>
        )}
        {error && (
          <p className="inline-error" role="alert">
            {error}
          </p>
        )}
      </div>
    </div>
  );
}
