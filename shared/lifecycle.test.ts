import { describe, expect, it } from 'vitest';
import { DisposableStore } from './lifecycle';

describe('DisposableStore', () => {
  it('ends what was added last first, awaiting each, and only once', async () => {
    const ended: string[] = [];
    const store = new DisposableStore();
    store.add(() => void ended.push('database'));
    store.add(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      ended.push('runs settled');
    });
    store.add({ dispose: () => void ended.push('hub') });
    await Promise.all([store.dispose(), store.dispose()]);
    expect(ended).toEqual(['hub', 'runs settled', 'database']);
    expect(store.isDisposed).toBe(true);
  });

  it('ends the rest when one fails, then rethrows the first failure; what is added later ends at once', async () => {
    const ended: string[] = [];
    const store = new DisposableStore();
    store.add(() => void ended.push('first'));
    store.add(() => {
      throw new Error('socket would not close');
    });
    store.add(() => void ended.push('last'));
    await expect(store.dispose()).rejects.toThrow('socket would not close');
    expect(ended).toEqual(['last', 'first']);
    store.add(() => void ended.push('late'));
    await store.dispose().catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(ended).toEqual(['last', 'first', 'late']);
  });
});
