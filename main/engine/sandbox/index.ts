export * from './content-cache';
export * from './files';
export * from './paths';
export * from './sandbox';
export * from './tracker';
export * from './walk';
