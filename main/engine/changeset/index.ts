export * from './diff';
export * from './net';
export * from './patch';
