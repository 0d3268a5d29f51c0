export * from './domain';
export * from './errors';
export * from './events';
export * from './ids';
export * from './contract';
export * from './ws-protocol';
export * from './streams';
export * from './checks';
