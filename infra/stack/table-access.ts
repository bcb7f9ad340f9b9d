import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import {
  authorizerFunction,
  eventsDispatcherFunction,
  exportJobFunction,
  routes,
  type TableAccess,
  type TableAction,
  tokenClaimsFunction,
  webhookSenderFunction,
} from '../../lib/routes';
import { leadingKeyPattern, type Partition } from '../../lib/storage/keys';

/**
 * Least privilege on the table: each function gets exactly the DynamoDB actions its row of the
 * route table declares, on the table's ARN (no index, no wildcard action), each action limited by
 * a dynamodb:LeadingKeys condition to the partitions it sends that action to. A writer can
 * therefore not put an item of another kind (create-ban cannot mint an `APIKEY#` item), and only
 * the functions that must withdraw an unrecorded change may delete an audit event.
 */

/**
 * The functions that are not routes, as lib/routes.ts declares them: the stack makes each (and
 * test/infra/stack.test.ts checks that every module under functions/ is a route's or one of these).
 */
export const nonRouteFunctions = [
  authorizerFunction,
  eventsDispatcherFunction,
  webhookSenderFunction,
  tokenClaimsFunction,
  exportJobFunction,
] as const;

/** Every function the stack makes, by its row: one per route, and the functions that are not routes. */
export const stackFunctions = [...routes, ...nonRouteFunctions] as const;

export type FunctionHandler = (typeof stackFunctions)[number]['handler'];

/** The actions a function's access names, in a fixed order. */
export const actionsOf = (access: TableAccess | undefined): TableAction[] =>
  (Object.keys(access ?? {}) as TableAction[]).filter((action) => (access?.[action]?.length ?? 0) > 0).sort();

/** Every function's table actions, by handler, as the route table declares them (none: []). */
export const TABLE_ACTIONS: Readonly<Record<FunctionHandler, readonly TableAction[]>> = Object.fromEntries(
  stackFunctions.map((fn) => [fn.handler, actionsOf('table' in fn ? fn.table : undefined)]),
) as unknown as Record<FunctionHandler, readonly TableAction[]>;

/**
 * Whether a function reads or writes the change feed or webhook deliveries: those are told the
 * events' retention (`EVENT_RETENTION_DAYS`, lib/domain/retention.ts), the others need not be.
 */
export const touchesEvents = (access: TableAccess | undefined): boolean =>
  Object.values(access ?? {}).some((partitions) =>
    (partitions ?? []).some((partition: Partition) => partition === 'feed' || partition === 'delivery'),
  );

/** The LeadingKeys patterns of some partitions (lib/storage/keys.ts). */
export const leadingKeysOf = (partitions: readonly Partition[]): string[] =>
  [...new Set(partitions)].sort().map(leadingKeyPattern);

/** The authorizer reads key lookup items only: a leaked authorizer role reads no bans or policies. */
export const AUTHORIZER_LEADING_KEYS = leadingKeysOf(authorizerFunction.table['dynamodb:GetItem']);

/** Partitions whose items hold a secret: a write to them may not read the item back. */
export const SECRET_PARTITIONS = ['webhookSecret'] as const satisfies readonly Partition[];

/** The actions that write an item, and could return what it held (`ReturnValues`). */
export const WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
] as const satisfies readonly TableAction[];

/**
 * What a write to a secret's partition must ask back: nothing. Without it, a role that may put or
 * delete a webhook's secret could read the secret it replaced or deleted (`ALL_OLD`), which only
 * the sender may read. IfExists: a request without `ReturnValues` asks for nothing already.
 */
export const NO_RETURN_VALUES = { StringEqualsIfExists: { 'dynamodb:ReturnValues': 'NONE' } } as const;

const isSecretWrite = (action: TableAction, partition: Partition) =>
  (WRITE_ACTIONS as readonly string[]).includes(action) &&
  (SECRET_PARTITIONS as readonly string[]).includes(partition);

/**
 * One statement per set of partitions: the actions sent to exactly those partitions, on the
 * table's ARN, under a LeadingKeys condition on them; writes to a secret's partition in a
 * statement of their own that also requires `ReturnValues` NONE.
 */
export const grantTableAccess = (fn: IFunction, tableArn: string, access: TableAccess | undefined) => {
  const bySet = new Map<string, TableAction[]>();
  const add = (set: string, action: TableAction) => bySet.set(set, [...(bySet.get(set) ?? []), action]);
  for (const action of actionsOf(access)) {
    const partitions = access?.[action] ?? [];
    const plain = partitions.filter((p) => !isSecretWrite(action, p));
    const secret = partitions.filter((p) => isSecretWrite(action, p));
    if (plain.length > 0) add(`plain ${leadingKeysOf(plain).join(' ')}`, action);
    if (secret.length > 0) add(`secret ${leadingKeysOf(secret).join(' ')}`, action);
  }
  for (const [set, actions] of bySet) {
    const [kind, ...keys] = set.split(' ');
    fn.addToRolePolicy(
      new PolicyStatement({
        actions,
        resources: [tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': keys },
          ...(kind === 'secret' ? NO_RETURN_VALUES : {}),
        },
      }),
    );
  }
};
