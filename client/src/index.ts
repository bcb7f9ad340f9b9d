/**
 * device-ban-client: a typed client of the device ban API for game servers. See README.md.
 */
export {
  type BanClient,
  type ClientOptions,
  createBanClient,
  type LocaleOption,
  retryRules,
} from './client.js';
export { ApiError, type ApiErrorCode, type ApiErrorInit } from './errors.js';
export {
  type BanMirror,
  createBanMirror,
  type DecideOptions,
  type DecisionSource,
  type MirrorCheck,
  type MirrorDecision,
  type MirrorEvent,
  type MirroredBan,
  type MirrorOptions,
  type MirrorSource,
  type MirrorState,
  type MirrorStatus,
  type SnapshotReason,
} from './mirror.js';
export type {
  Appeal,
  Ban,
  BanCreationResult,
  BanList,
  Body,
  CreateAppealRequest,
  CreateBanRequest,
  components,
  Enforcement,
  EnforcementBatch,
  ErrorEnvelope,
  FeedEvent,
  FeedPage,
  FieldIssue,
  KeyedOperationId,
  OperationId,
  operations,
  PathParams,
  Policy,
  PolicyPatch,
  paths,
  Query,
  Result,
  RevokeBanRequest,
} from './operation-types.js';
export { type OperationRow, operationTable, type RetryRule } from './operations.js';
export { type CursorOf, EventFeed, type FeedPageLike, type ListPage, Paged } from './paging.js';
export {
  type BanRelay,
  createBanRelay,
  type RelayEvent,
  type RelayGameState,
  type RelayGameStatus,
  type RelayKeys,
  type RelayOptions,
  type RelaySource,
  type RelayStatus,
} from './relay.js';
export type { CallOptions } from './transport.js';
