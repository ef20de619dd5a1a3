export { COMPRESSED_FROM_BYTES, queryTree, queryViews, readPool } from './app';
export { type LeadershipOptions, PROJECTION_LEADER_LOCK, ProjectionLeadership } from './leader';
export {
  CHECKPOINT_CHANNEL,
  describeFailure,
  LIVE_SCHEMA,
  ProjectionRunner,
  readStatuses,
} from './projection-runner';
export { projections } from './read-models';
export {
  compareWithRebuild,
  ensureReadModels,
  liveReadModelIsCurrent,
  type ReadModelDifference,
  rebuildProjection,
  rebuildReadModels,
} from './read-models/read-schema';
