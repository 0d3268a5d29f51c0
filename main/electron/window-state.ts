import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserWindowConstructorOptions, Rectangle } from 'electron';
import { z } from 'zod';

/** The main window's place between starts: its normal (not maximized) bounds, and whether it was maximized. */
export const WindowStateSchema = z.object({
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  maximized: z.boolean(),
});
export type WindowState = z.infer<typeof WindowStateSchema>;

const FILE = 'window-state.json';

/** The saved state in the data directory; null when there is none or it does not parse (the defaults then). */
export function readWindowState(dataDir: string): WindowState | null {
  try {
    const parsed = WindowStateSchema.safeParse(JSON.parse(readFileSync(join(dataDir, FILE), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Written whole and renamed, so a crash never leaves half a file. */
export function writeWindowState(dataDir: string, state: WindowState): void {
  const tmp = join(dataDir, `${FILE}.${process.pid}.tmp`);
  writeFileSync(tmp, `${JSON.stringify(WindowStateSchema.parse(state))}\n`);
  renameSync(tmp, join(dataDir, FILE));
}

const overlaps = (a: Rectangle, b: Rectangle) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/**
 * The window's options with the saved size, and the saved position where it still overlaps a
 * display's work area (a screen unplugged since would leave the window out of sight: the system
 * then centres it). Sizes below the window's minimum are raised to it.
 */
export function withWindowState(options: BrowserWindowConstructorOptions, state: WindowState | null, workAreas: readonly Rectangle[]): BrowserWindowConstructorOptions {
  if (!state) return options;
  const width = Math.max(state.width, options.minWidth ?? 0);
  const height = Math.max(state.height, options.minHeight ?? 0);
  const visible = workAreas.some((area) => overlaps(area, { x: state.x, y: state.y, width, height }));
  return { ...options, width, height, ...(visible && { x: state.x, y: state.y }) };
}

/** What to save of a window as it closes. */
export function windowStateOf(window: { getNormalBounds(): Rectangle; isMaximized(): boolean }): WindowState {
  const bounds = window.getNormalBounds();
  return { x: Math.round(bounds.x), y: Math.round(bounds.y), width: Math.round(bounds.width), height: Math.round(bounds.height), maximized: window.isMaximized() };
}
