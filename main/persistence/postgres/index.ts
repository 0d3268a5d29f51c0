// Team mode's storage: the database URL, its schema, and every store in PostgreSQL.
export * from './database';
export * from './database-url';
export * from './errors';
export * from './event-feed';
export * from './migrations';
export * from './stores';
