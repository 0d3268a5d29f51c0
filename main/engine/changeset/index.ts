export * from './apply';
export * from './diff';
export * from './net';
export * from './patch';
