import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readWindowState, windowStateOf, withWindowState, writeWindowState } from './window-state';

const options = { width: 1280, height: 820, minWidth: 800, minHeight: 520, title: 'CleverAgents' };
const screen = [{ x: 0, y: 0, width: 1920, height: 1080 }];

describe("the window's place between starts", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'agents-window-'));
    dirs.push(dir);
    return dir;
  };

  it('is read back as it was written, and a missing or broken file gives the defaults', () => {
    const dir = dataDir();
    expect(readWindowState(dir)).toBeNull();
    const state = windowStateOf({ getNormalBounds: () => ({ x: 10.4, y: 20, width: 1000, height: 700 }), isMaximized: () => false });
    writeWindowState(dir, state);
    expect(readWindowState(dir)).toEqual({ x: 10, y: 20, width: 1000, height: 700, maximized: false });
    writeFileSync(join(dir, 'window-state.json'), '{"x": "left"');
    expect(readWindowState(dir)).toBeNull();
    expect(withWindowState(options, null, screen)).toBe(options);
  });

  it('keeps the size (never under the minimum) and the position only where a display still shows it', () => {
    expect(withWindowState(options, { x: 100, y: 50, width: 1000, height: 700, maximized: false }, screen)).toMatchObject({ x: 100, y: 50, width: 1000, height: 700, title: 'CleverAgents' });
    expect(withWindowState(options, { x: 100, y: 50, width: 300, height: 200, maximized: false }, screen)).toMatchObject({ width: 800, height: 520 });
    // Left on a second screen that is gone: the size is kept, the system places the window.
    const gone = withWindowState(options, { x: 2500, y: 100, width: 1000, height: 700, maximized: false }, screen);
    expect(gone).toMatchObject({ width: 1000, height: 700 });
    expect(gone).not.toHaveProperty('x');
    expect(gone).not.toHaveProperty('y');
  });
});
