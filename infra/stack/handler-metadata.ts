/**
 * Template metadata naming the route-table handler a Lambda runs, so that tools reading the cloud
 * assembly (infra/local/bundles.ts) find its bundle without guessing from construct paths. Kept
 * apart from the stack so that reading it does not load aws-cdk-lib.
 */
export const HANDLER_METADATA_KEY = 'device-bans:handler';
