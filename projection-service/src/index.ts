export { buildQueryApp } from './app';
export { CHECKPOINT_CHANNEL, LIVE_SCHEMA, ProjectionRunner } from './projection-runner';
export { projections } from './projections';
export { ensureReadModels, rebuildReadModels } from './read-model/read-schema';
