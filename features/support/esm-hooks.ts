import { register } from 'tsx/esm/api';

// The app loads a module some commands never need at its first use, through import() (the YAML
// parser, the use cases that run and fix plans): tsx/cjs alone leaves that to Node's ESM resolver,
// which cannot find an extensionless TypeScript module. bin/agents.cjs registers the same hooks.
register();
