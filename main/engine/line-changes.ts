export { countLineChanges } from './changeset/line-diff';
