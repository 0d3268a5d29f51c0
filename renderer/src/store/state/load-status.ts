/** Where a fetched part of the state stands. */
export type LoadStatus = 'idle' | 'loading' | 'loaded' | 'error';
