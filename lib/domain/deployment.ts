import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import * as clock from '../clock';
import { dynamo, perStore, tableName } from '../storage/client';
import { isConditionFailure } from '../storage/failures';
import { deploymentKey } from '../storage/keys';
import { IntegrityError } from './errors';

/**
 * Which store answered a feed or snapshot read (`deployment_id`), so a game server's copy saved
 * from one deployment never follows another's feed. The table holds one item (`DEPLOYMENT#TABLE`
 * / `DEPLOYMENT`) with a random id, put by whichever reader needs it first (a conditional put: the
 * first one wins, a loser reads the winner's). The id answered is a digest of that random id and
 * the table's name: a table restored from a backup (a new table, a new name) holds the same item
 * yet answers as another deployment, and so does every local store (its own item). Locally and
 * deployed alike; the id never changes for a table, so each process reads it once per store bound.
 */

/** A stored random id: 16 random bytes, base64url. */
const RANDOM_ID = /^[A-Za-z0-9_-]{22}$/;

const readRandomId = async (): Promise<string | undefined> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: deploymentKey(), ConsistentRead: true }),
  );
  if (Item === undefined) return undefined;
  if (typeof Item.random_id !== 'string' || !RANDOM_ID.test(Item.random_id))
    throw new IntegrityError('stored deployment item is malformed');
  return Item.random_id;
};

/** The stored random id, created when there is none yet. */
const storedRandomId = async (): Promise<string> => {
  const existing = await readRandomId();
  if (existing !== undefined) return existing;
  const fresh = randomBytes(16).toString('base64url');
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...deploymentKey(), random_id: fresh, created_at: new Date(clock.now()).toISOString() },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return fresh;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  // Another reader created it first (or this put landed and its answer was lost): theirs holds.
  const winner = await readRandomId();
  if (winner === undefined) throw new IntegrityError('deployment item missing after its creation failed');
  return winner;
};

/** The id answered for a stored random id in a table of this name. */
export const deploymentIdOf = (randomId: string, table: string): string =>
  `dep_${createHash('sha256').update(`deployment\n${randomId}\n${table}`).digest('base64url').slice(0, 22)}`;

/** The id read from the bound store, kept per store (two stores bound in turn each read their own). */
const cache = perStore((): { pending?: Promise<string> } => ({}));

/** This table's deployment id: read (or created) once per process and store; a failed read is not kept. */
export const currentDeploymentId = (): Promise<string> => {
  const slot = cache();
  if (slot.pending === undefined) {
    const table = tableName();
    const pending = storedRandomId().then((randomId) => deploymentIdOf(randomId, table));
    slot.pending = pending;
    pending.catch(() => {
      if (slot.pending === pending) slot.pending = undefined;
    });
  }
  return slot.pending;
};

/** Forgets the id read from the bound store (tests: a process that has not read it yet). */
export const forgetDeploymentId = () => {
  cache().pending = undefined;
};
