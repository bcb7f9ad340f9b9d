import { partitionKeyOf } from './faults';

/**
 * IAM as the synthesized template grants it, enforced on the storage client: what only AWS checks
 * (no IAM exists locally), checked here. A role's DynamoDB statements are read from the template;
 * every call the client sends while a function "acts" is refused, as AWS would refuse it, unless
 * one statement allows its action on the table with every partition key it touches under that
 * statement's `dynamodb:LeadingKeys` patterns.
 */

export interface TableGrant {
  readonly actions: readonly string[];
  /** The table (or index) ARNs, as the template writes them (references compared as JSON). */
  readonly resources: readonly string[];
  /** `ForAllValues:StringLike` patterns on `dynamodb:LeadingKeys`; null: no condition. */
  readonly leadingKeys: readonly string[] | null;
}

type Resources = Record<string, { Type: string; Properties?: Record<string, any> }>;

/**
 * The Allow statements of the role of the function with this logical id, each with its actions of
 * one service (`dynamodb:`, `cognito-idp:`) and its resources; statements without such an action
 * are left out.
 */
const allowsOf = (resources: Resources, functionLogicalId: string, service: string) => {
  const roleId = resources[functionLogicalId]?.Properties?.Role?.['Fn::GetAtt']?.[0];
  if (!roleId) throw new Error(`no role for ${functionLogicalId}`);
  return Object.values(resources)
    .filter(
      (r) =>
        r.Type === 'AWS::IAM::Policy' &&
        (r.Properties?.Roles ?? []).some((role: { Ref?: string }) => role.Ref === roleId),
    )
    .flatMap((policy) => policy.Properties?.PolicyDocument.Statement ?? [])
    .filter((s: Record<string, any>) => s.Effect === 'Allow')
    .map((s: Record<string, any>) => ({
      statement: s,
      actions: [s.Action].flat().filter((a: string) => a.startsWith(service)) as string[],
      resources: [s.Resource].flat().map((r: unknown) => JSON.stringify(r)),
    }))
    .filter((allow) => allow.actions.length > 0);
};

/** The DynamoDB statements of the role of the function with this logical id. */
export const tableGrantsOf = (resources: Resources, functionLogicalId: string): TableGrant[] =>
  allowsOf(resources, functionLogicalId, 'dynamodb:').map(({ statement, actions, resources: on }) => ({
    actions,
    resources: on,
    leadingKeys: statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'] ?? null,
  }));

/** IAM's StringLike: `*` any run of characters, `?` any one. */
const like = (pattern: string, value: string) =>
  new RegExp(
    `^${pattern
      .split('')
      .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('')}$`,
  ).test(value);

/** A grant's action on one of its partitions: `dynamodb:PutItem AUDIT#*` (`*`: no condition). */
export type GrantUse = string;

/**
 * The grant uses under which a grant set allows `action` on the table resource with these
 * partition keys (one per key: the LeadingKeys pattern it matched), or null: refused.
 */
export const allowedUnder = (
  grants: readonly TableGrant[],
  action: string,
  tableResource: string,
  keys: readonly (string | undefined)[],
): GrantUse[] | null => {
  for (const grant of grants) {
    if (!grant.actions.includes(action) || !grant.resources.includes(tableResource)) continue;
    if (grant.leadingKeys === null) return [`${action} *`];
    const patterns = keys.map((key) =>
      key === undefined ? undefined : grant.leadingKeys?.find((p) => like(p, key)),
    );
    if (keys.length > 0 && patterns.every((p) => p !== undefined))
      return [...new Set(patterns)].map((p) => `${action} ${p}`);
  }
  return null;
};

/** Whether a grant set allows `action` on the table resource with these partition keys. */
export const allows = (
  grants: readonly TableGrant[],
  action: string,
  tableResource: string,
  keys: readonly (string | undefined)[],
) => allowedUnder(grants, action, tableResource, keys) !== null;

/** Every grant use a grant set holds on the table resource: what the over-grant check expects used. */
export const grantUsesOf = (grants: readonly TableGrant[], tableResource: string): GrantUse[] =>
  [
    ...new Set(
      grants
        .filter((grant) => grant.resources.includes(tableResource))
        .flatMap((grant) =>
          grant.actions.flatMap((action) => (grant.leadingKeys ?? ['*']).map((p) => `${action} ${p}`)),
        ),
    ),
  ].sort();

/** The value bound to the partition key in a Query's key condition, plain or marshalled. */
const queryKeyOf = (input: Record<string, any>) => {
  const condition = String(input.KeyConditionExpression ?? '');
  const names = input.ExpressionAttributeNames ?? {};
  const match = /([#\w]+)\s*=\s*(:\w+)/.exec(condition);
  if (!match?.[1] || !match[2]) return undefined;
  const name = names[match[1]] ?? match[1];
  if (name !== 'pk') return undefined;
  const raw = input.ExpressionAttributeValues?.[match[2]];
  return typeof raw === 'string' ? raw : raw?.S;
};

const keyOfRequest = (request: Record<string, any>) =>
  partitionKeyOf(request) ?? partitionKeyOf({ Item: request.Item, Key: request.Key });

/** Each IAM action a call needs, with the partition keys it touches under that action. */
export const actionsOfCall = (
  command: string,
  input: Record<string, any>,
): Array<{ action: string; keys: Array<string | undefined>; index: boolean }> => {
  const index = Boolean(input.IndexName);
  switch (command) {
    case 'GetItem':
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return [{ action: `dynamodb:${command}`, keys: [partitionKeyOf(input)], index }];
    case 'Query':
      return [{ action: 'dynamodb:Query', keys: [queryKeyOf(input)], index }];
    case 'Scan':
      return [{ action: 'dynamodb:Scan', keys: [], index }];
    case 'BatchGetItem':
      return Object.values(input.RequestItems ?? {}).map((request: any) => ({
        action: 'dynamodb:BatchGetItem',
        keys: (request.Keys ?? []).map((key: unknown) => partitionKeyOf({ Key: key })),
        index: false,
      }));
    case 'BatchWriteItem':
      return Object.values(input.RequestItems ?? {}).flatMap((writes: any) =>
        writes.map((write: any) => ({
          action: 'dynamodb:BatchWriteItem',
          keys: [keyOfRequest(write.PutRequest ?? write.DeleteRequest ?? {})],
          index: false,
        })),
      );
    case 'TransactWriteItems':
      return (input.TransactItems ?? []).map((item: any) => {
        const [kind, request] = Object.entries(item)[0] ?? [];
        const action = {
          Put: 'PutItem',
          Update: 'UpdateItem',
          Delete: 'DeleteItem',
          ConditionCheck: 'ConditionCheckItem',
        }[kind as string];
        return { action: `dynamodb:${action}`, keys: [keyOfRequest(request as any)], index: false };
      });
    case 'TransactGetItems':
      return (input.TransactItems ?? []).map((item: any) => ({
        action: 'dynamodb:GetItem',
        keys: [keyOfRequest(item.Get ?? {})],
        index: false,
      }));
    default:
      return [{ action: `dynamodb:${command}`, keys: [], index }];
  }
};

export interface Denial {
  fn: string;
  action: string;
  keys: Array<string | undefined>;
}

type MiddlewareClient = {
  middlewareStack: {
    add(middleware: any, options: Record<string, unknown>): void;
    remove(name: string): boolean;
  };
};

/**
 * Enforces, on every call of `client`, the grants of whichever function `acting()` names (none
 * named: the call is ours, the test's own setup, and goes through). A refused call throws what
 * DynamoDB throws for a missing permission, and is listed in `denied`; `used` lists, by function,
 * each grant use (action and LeadingKeys pattern) its calls were allowed under, for the over-grant
 * check: a grant no flow uses is one a role need not hold.
 */
export const enforceGrants = (
  client: MiddlewareClient,
  tableResource: string,
  grantsOf: (fn: string) => readonly TableGrant[],
  acting: () => string | undefined,
) => {
  const denied: Denial[] = [];
  const used = new Map<string, Set<GrantUse>>();
  const name = 'iamConformance';
  client.middlewareStack.add(
    (next: (args: any) => Promise<any>, context: Record<string, any>) => async (args: any) => {
      const fn = acting();
      if (fn === undefined) return next(args);
      const command = String(context.commandName ?? '').replace(/Command$/, '');
      for (const { action, keys, index } of actionsOfCall(command, args.input ?? {})) {
        const grants = grantsOf(fn);
        const resource = index ? `${tableResource}/index` : tableResource;
        const uses = allowedUnder(grants, action, resource, keys);
        if (!uses) {
          denied.push({ fn, action, keys });
          throw Object.assign(
            new Error(
              `User: ${fn} is not authorized to perform: ${action} on the table with keys ${keys.join(', ')}`,
            ),
            { name: 'AccessDeniedException', $fault: 'client', $metadata: { httpStatusCode: 400 } },
          );
        }
        const fnUses = used.get(fn) ?? new Set<GrantUse>();
        for (const use of uses) fnUses.add(use);
        used.set(fn, fnUses);
      }
      return next(args);
    },
    { step: 'initialize', priority: 'high', name },
  );
  return { denied, used, remove: () => client.middlewareStack.remove(name) };
};

/** A function's grants on Cognito (the people routes'): its actions and the resources they are on. */
export const userPoolGrantsOf = (
  resources: Resources,
  functionLogicalId: string,
): Array<{ actions: string[]; resources: string[] }> =>
  allowsOf(resources, functionLogicalId, 'cognito-idp:').map(({ actions, resources: on }) => ({
    actions,
    resources: on,
  }));
