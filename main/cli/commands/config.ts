import type { Command } from 'commander';
import type { SettingsView } from '../../../shared/agent';
import { CONFIG_KEYS, configPatch, configSetting, type SettingsFile } from '../../app/settings';
import { commandGroup, jsonOption } from '../options';
import { type Ctx, runCommand } from '../run-command';

/** `agents config list`: each setting of the table, then the model in effect and where it comes from. */
export function formatSettings(file: SettingsFile, effective: SettingsView['effective']): string {
  const source = { env: 'from the environment', settings: 'from the settings file', none: 'not set' } as const;
  const width = Math.max(...CONFIG_KEYS.map((key) => key.length)) + 2;
  const lines = CONFIG_KEYS.map((key) => {
    const { value, unit } = configSetting(key);
    const shown = value(file);
    return `${`${key}:`.padEnd(width)}${shown === null ? '(not set)' : `${shown}${unit ? ` ${unit}` : ''}`}`;
  });
  return [
    ...lines,
    '',
    `${'in effect:'.padEnd(width)}model ${effective.model ?? '(none)'} (${source[effective.modelSource]}), base URL ${effective.baseUrl ?? '(provider default)'}, API key ${source[effective.apiKeySource]}`,
  ].join('\n');
}

/** `agents config`: the model settings in the data directory. */
export function registerConfig(program: Command, ctx: Ctx): void {
  const config = commandGroup(program, ctx, 'config', `the model settings in the data directory (mode 0600): ${CONFIG_KEYS.join(', ')}`).addHelpText(
    'after',
    "\nThe environment (AGENTS_MODEL, AGENTS_BASE_URL, AGENTS_API_KEY) wins over these; a plan's agent.model wins over both.\nExample:\n  agents config set model ollama:qwen2.5-coder",
  );
  // This machine's settings: a team database named there (even an unreachable one) is not opened, so it can be changed.
  config.hook('preAction', () => {
    ctx.open.database = false;
  });

  config
    .command('list')
    .description('every setting, the model in effect and where it comes from; the API key only as set or not')
    .addOption(jsonOption())
    .action(
      runCommand(ctx, async () => {
        const app = await ctx.app();
        const view = app.service.settingsView();
        return { json: view, text: () => formatSettings(app.settings.read(), view.effective) };
      }),
    );

  config
    .command('get <key>')
    .description('one setting (apiKey prints only whether one is set)')
    .action(
      runCommand(ctx, async (key: string) => {
        const setting = configSetting(key);
        return { text: String(setting.value((await ctx.app()).settings.read()) ?? '') };
      }),
    );

  config
    .command('set <key> <value>')
    .description('change a setting; an empty value clears it')
    .action(
      runCommand(ctx, async (key: string, value: string) => {
        const settings = (await ctx.app()).settings;
        settings.patch(configPatch(key, value, settings.read()));
        return { text: `${key} ${value === '' ? 'cleared' : 'set'}` };
      }),
    );

  config
    .command('unset <key>')
    .description('clear a setting')
    .action(
      runCommand(ctx, async (key: string) => {
        const settings = (await ctx.app()).settings;
        settings.patch(configPatch(key, '', settings.read()));
        return { text: `${key} cleared` };
      }),
    );
}
