import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { authorizerFunction, routes, StorageAccess } from '../../lib/routes';

/**
 * Least privilege on the table: each function gets exactly the DynamoDB actions its lib/ code
 * sends, as an explicit statement on the table's ARN (no index, no wildcard).
 */

export type FunctionHandler = (typeof routes)[number]['handler'] | (typeof authorizerFunction)['handler'];

/** The functions that may touch the table at all; `storage: 'none'` routes get nothing. */
type StoringHandler =
  | Extract<(typeof routes)[number], { storage: 'read' | 'read-write' }>['handler']
  | (typeof authorizerFunction)['handler'];

const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query'] as const;
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem'] as const;
type TableAction = (typeof READ_ACTIONS)[number] | (typeof WRITE_ACTIONS)[number];

/**
 * What each function's code calls. Typed over the route table's handlers with storage access, so
 * such a new route does not compile until its access is written down here; checked against the
 * route's `storage` level when the stack is built.
 */
export const TABLE_ACTIONS = {
  // lib/policy.ts getPolicy
  'get-policy': ['dynamodb:GetItem'],
  // lib/policy.ts updatePolicy: one conditional UpdateItem returning ALL_NEW
  'put-policy': ['dynamodb:UpdateItem'],
  // lib/bans.ts createBan: counter ADD, conditional puts, and the idempotency record read
  'create-ban': ['dynamodb:UpdateItem', 'dynamodb:PutItem', 'dynamodb:GetItem'],
  // lib/bans.ts listBans: the policy read (getPolicy) and the device's bans (visibleBans)
  'list-social-bans': ['dynamodb:GetItem', 'dynamodb:Query'],
  'list-cheat-bans': ['dynamodb:GetItem', 'dynamodb:Query'],
  'list-bans': ['dynamodb:GetItem', 'dynamodb:Query'],
  // lib/bans.ts revokeBan: conditional UpdateItem, the ban read when it fails, getPolicy
  'revoke-ban': ['dynamodb:UpdateItem', 'dynamodb:GetItem'],
  // lib/enforcement.ts: getPolicy and visibleBans per device
  'get-enforcement': ['dynamodb:GetItem', 'dynamodb:Query'],
  'enforcement-batch': ['dynamodb:GetItem', 'dynamodb:Query'],
  // lib/api-keys.ts authenticate
  authorizer: ['dynamodb:GetItem'],
} as const satisfies Record<StoringHandler, readonly TableAction[]>;

/**
 * The authorizer reads key lookup items only (`APIKEY#<sha256>`, see lib/api-keys.ts
 * apiKeyLookupKey): a leaked authorizer role cannot read bans, policies or other publishers' data.
 */
export const AUTHORIZER_LEADING_KEYS = ['APIKEY#*'];

/** The actions of `handler`, refusing any its route's storage level does not allow. */
export const tableActionsFor = (handler: FunctionHandler, storage: StorageAccess): readonly TableAction[] => {
  if (storage === 'none') return [];
  const actions: readonly TableAction[] | undefined = (
    TABLE_ACTIONS as Partial<Record<string, readonly TableAction[]>>
  )[handler];
  if (!actions) {
    throw new Error(
      `no table access written down for ${handler}: add it to TABLE_ACTIONS in infra/stack/table-access.ts`,
    );
  }
  const allowed: readonly TableAction[] =
    storage === 'read' ? READ_ACTIONS : [...READ_ACTIONS, ...WRITE_ACTIONS];
  const excess = actions.filter((action) => !allowed.includes(action));
  if (excess.length > 0) {
    throw new Error(`${handler} has storage '${storage}' but is given ${excess.join(', ')}`);
  }
  return actions;
};

export const grantTableAccess = (
  fn: IFunction,
  tableArn: string,
  actions: readonly TableAction[],
  leadingKeys?: readonly string[],
) => {
  if (actions.length === 0) return;
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: [...actions],
      resources: [tableArn],
      ...(leadingKeys
        ? { conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...leadingKeys] } } }
        : {}),
    }),
  );
};
