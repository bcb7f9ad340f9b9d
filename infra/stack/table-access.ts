import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { authorizerFunction, routes, type TableAccess, type TableAction } from '../../lib/routes';
import { leadingKeyPattern } from '../../lib/storage/keys';

/**
 * Least privilege on the table: each function gets exactly the DynamoDB actions its row of the
 * route table declares, as one explicit statement on the table's ARN (no index, no wildcard
 * action), limited by a dynamodb:LeadingKeys condition to the partitions it touches. A writer
 * can therefore not put an item of another kind (create-ban cannot mint an `APIKEY#` item).
 */

export type FunctionHandler = (typeof routes)[number]['handler'] | (typeof authorizerFunction)['handler'];

/** Every function's table actions, by handler, as the route table declares them (none: []). */
export const TABLE_ACTIONS: Readonly<Record<FunctionHandler, readonly TableAction[]>> = Object.fromEntries(
  [...routes, authorizerFunction].map((fn) => [fn.handler, 'table' in fn ? fn.table.actions : []]),
) as unknown as Record<FunctionHandler, readonly TableAction[]>;

/** The LeadingKeys patterns of one function's partitions (lib/storage/keys.ts). */
export const leadingKeysOf = (access: TableAccess): string[] => access.partitions.map(leadingKeyPattern);

/** The authorizer reads key lookup items only: a leaked authorizer role reads no bans or policies. */
export const AUTHORIZER_LEADING_KEYS = leadingKeysOf(authorizerFunction.table);

export const grantTableAccess = (fn: IFunction, tableArn: string, access: TableAccess | undefined) => {
  if (!access || access.actions.length === 0) return;
  if (access.partitions.length === 0) throw new Error('a table grant needs the partitions it may touch');
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: [...access.actions],
      resources: [tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': leadingKeysOf(access) } },
    }),
  );
};
