// One disposal idiom for every lifetime, after VS Code's base/common/lifecycle.ts: what a lifetime
// starts is added to its store as it starts, and the store ends it all in the reverse order, once.

/** Something that ends: a subscription, a binding, a connection, a database. */
export interface Disposable {
  dispose(): void | Promise<void>;
}

type Teardown = Disposable | (() => void | Promise<void>);

export class DisposableStore implements Disposable {
  private readonly items: Teardown[] = [];
  private disposing: Promise<void> | null = null;

  /** Adds `item`, to be ended before anything added earlier; returns it. Added after dispose, it is ended at once. */
  add<T extends Teardown>(item: T): T {
    if (this.disposing) {
      // Nobody awaits a late item's end: it runs after the rest, and its failure is dropped.
      const late = async () => end(item);
      void this.disposing.then(late, late).catch(() => undefined);
    } else this.items.push(item);
    return item;
  }

  get isDisposed(): boolean {
    return this.disposing !== null;
  }

  /**
   * Ends every item, the last added first, each after the one before it has ended (an async one is
   * awaited). A failure does not stop the rest; the first is rethrown at the end. Once: later calls
   * return the same promise.
   */
  dispose(): Promise<void> {
    return (this.disposing ??= (async () => {
      let failure: { error: unknown } | null = null;
      for (const item of this.items.splice(0).reverse()) {
        try {
          await end(item);
        } catch (error) {
          failure ??= { error };
        }
      }
      if (failure) throw failure.error;
    })());
  }
}

function end(item: Teardown): void | Promise<void> {
  return typeof item === 'function' ? item() : item.dispose();
}
