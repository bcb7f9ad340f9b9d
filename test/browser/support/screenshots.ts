/**
 * The screenshots docs/console.md shows: `npm run test:browser` with UPDATE_SCREENSHOTS=1 copies
 * them from .artifacts/console/ to docs/screenshots/ after a run that passed.
 */
export const CURATED_SCREENSHOTS: readonly string[] = [
  'people-sign-in',
  'people-viewer-audit',
  'sign-in',
  'start-page',
  'scopes-bans-read',
  'device-enforcement',
  'device-reputation',
  'device-bans',
  'device-search',
  'create-ban-invalid',
  'create-ban',
  'revoke-ban',
  'erase-device',
  'policy-preview',
  'audit-trail',
  'keys-created',
  'webhook-deliveries',
  'appeals-queue',
  'appeal-open',
  'appeal-decision',
  'appeal-preview',
  'appeal-device-outcome',
  'error-503-create',
  'error-429',
  'error-network',
];
