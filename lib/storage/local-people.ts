import { randomBytes, randomUUID, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { DeleteCommand, GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isRole, type Role } from '@kernel/people';
import * as clock from '../clock';
import { dynamo, tableName } from './client';
import { isConditionFailure } from './failures';
import { localPersonEmailKey, localPersonKey, partitions } from './keys';

/**
 * The people of the local identity provider (infra/local/identity.ts), in the local store: what
 * Cognito's user pool is to the deployed stage (./user-pool.ts). The operator's tool
 * (infra/users-cli.ts, through infra/local/people.ts) and the people routes
 * (lib/domain/people-admin.ts) both change them here. Invariants: one person per email (taken with a conditional
 * put); passwords kept as scrypt hashes with a salt each, never as given. Items:
 * docs/data-model.md#the-table.
 */

export interface LocalPerson {
  sub: string;
  email: string;
  publisher_id: string;
  role: Role;
  created_at: string;
  disabled_at: string | null;
  /** When they last signed in at the local provider; null: never. */
  last_sign_in_at: string | null;
}

const derive = promisify(scrypt) as (password: string, salt: Buffer, length: number) => Promise<Buffer>;
const HASH_BYTES = 32;

const hashPassword = async (password: string) => {
  const salt = randomBytes(16);
  return `scrypt:${salt.toString('base64url')}:${(await derive(password, salt, HASH_BYTES)).toString('base64url')}`;
};

const passwordMatches = async (password: string, stored: unknown) => {
  const [kind, salt, hash] = String(stored).split(':');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), expected.length);
  return expected.length === HASH_BYTES && timingSafeEqual(actual, expected);
};

/** A subject no person has (they are UUIDs). */
const NO_ONE = 'no-one';
/** A hash no password is known to match, made once: what an unknown email's password is checked against. */
let decoy: Promise<string> | undefined;
const decoyHash = () => {
  decoy ??= hashPassword(randomBytes(16).toString('base64url'));
  return decoy;
};

/** A password worth typing: 16 characters of base64url, 96 bits. */
export const newPassword = () => randomBytes(12).toString('base64url');

const normalEmail = (email: string) => email.trim().toLowerCase();

const personFromItem = (item: Record<string, unknown>): LocalPerson => {
  const { sub, email, publisher_id, role, created_at, disabled_at, last_sign_in_at } = item;
  if (
    typeof sub !== 'string' ||
    typeof email !== 'string' ||
    typeof publisher_id !== 'string' ||
    !isRole(role) ||
    typeof created_at !== 'string'
  )
    throw new Error('stored local person is malformed');
  return {
    sub,
    email,
    publisher_id,
    role,
    created_at,
    disabled_at: typeof disabled_at === 'string' ? disabled_at : null,
    last_sign_in_at: typeof last_sign_in_at === 'string' ? last_sign_in_at : null,
  };
};

export class PersonExistsError extends Error {}

/** Adds a person; their email must be new (PersonExistsError). */
export const createLocalPerson = async (
  person: { email: string; publisher_id: string; role: Role },
  password: string,
): Promise<LocalPerson> => {
  const email = normalEmail(person.email);
  const sub = randomUUID();
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...localPersonEmailKey(email), sub },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw new PersonExistsError(`${email} already has an account`);
    throw error;
  }
  const made: LocalPerson = {
    sub,
    email,
    publisher_id: person.publisher_id,
    role: person.role,
    created_at: new Date(clock.now()).toISOString(),
    disabled_at: null,
    last_sign_in_at: null,
  };
  try {
    await dynamo.send(
      new PutCommand({
        TableName: tableName(),
        // No disabled_at until disabled: disabling sets it once (if_not_exists).
        Item: {
          ...localPersonKey(sub),
          sub,
          email,
          publisher_id: made.publisher_id,
          role: made.role,
          created_at: made.created_at,
          password_hash: await hashPassword(password),
        },
      }),
    );
  } catch (error) {
    // Give the email back, so a retry can make the person.
    await dynamo.send(new DeleteCommand({ TableName: tableName(), Key: localPersonEmailKey(email) }));
    throw error;
  }
  return made;
};

export const findLocalPerson = async (sub: string): Promise<LocalPerson | undefined> => {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: localPersonKey(sub), ConsistentRead: true }),
  );
  return Item ? personFromItem(Item) : undefined;
};

const subOfEmail = async (email: string): Promise<string | undefined> => {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName(),
      Key: localPersonEmailKey(normalEmail(email)),
      ConsistentRead: true,
    }),
  );
  return typeof Item?.sub === 'string' ? Item.sub : undefined;
};

/** The person these credentials name, if the password is theirs and they are not disabled. */
export const signInLocalPerson = async (
  email: string,
  password: string,
): Promise<LocalPerson | undefined> => {
  // An email no one has costs the same reads and hashing as a wrong password: the time tells
  // nothing (its person read finds no item).
  const sub = await subOfEmail(email);
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: localPersonKey(sub ?? NO_ONE), ConsistentRead: true }),
  );
  if (!(await passwordMatches(password, Item?.password_hash ?? (await decoyHash())))) return undefined;
  if (!Item) return undefined;
  const person = personFromItem(Item);
  if (person.disabled_at !== null) return undefined;
  // What the people listing shows as their last sign-in.
  const at = new Date(clock.now()).toISOString();
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: localPersonKey(person.sub),
      UpdateExpression: 'SET last_sign_in_at = :at',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': at },
    }),
  );
  return { ...person, last_sign_in_at: at };
};

interface PersonUpdate {
  UpdateExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

/** Updates the person `sub`; none: undefined. */
const updateBySub = async (sub: string, update: PersonUpdate): Promise<LocalPerson | undefined> => {
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: localPersonKey(sub),
        ...update,
        ConditionExpression: 'attribute_exists(pk)',
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? personFromItem(Attributes) : undefined;
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};

/** Updates the person of `email`; none: undefined. */
const updateLocalPerson = async (email: string, update: PersonUpdate): Promise<LocalPerson | undefined> => {
  const sub = await subOfEmail(email);
  return sub ? updateBySub(sub, update) : undefined;
};

const disabling = (): PersonUpdate => ({
  UpdateExpression: 'SET disabled_at = if_not_exists(disabled_at, :now)',
  ExpressionAttributeValues: { ':now': new Date(clock.now()).toISOString() },
});
const enabling: PersonUpdate = { UpdateExpression: 'REMOVE disabled_at' };
const roleSet = (role: Role): PersonUpdate => ({
  UpdateExpression: 'SET #role = :role',
  ExpressionAttributeNames: { '#role': 'role' },
  ExpressionAttributeValues: { ':role': role },
});

/** Disables a person: no new sign-in and no refresh from now on. */
export const disableLocalPerson = (email: string) => updateLocalPerson(email, disabling());

/** Enables a disabled person again: they sign in with the password they had. */
export const enableLocalPerson = (email: string) => updateLocalPerson(email, enabling);

/** Gives a person another role: it holds from their next sign-in or renewal. */
export const setLocalPersonRole = (email: string, role: Role) => updateLocalPerson(email, roleSet(role));

/** The same three changes by the person's subject (the people routes name people by it). */
export const disableLocalPersonBySub = (sub: string) => updateBySub(sub, disabling());
export const enableLocalPersonBySub = (sub: string) => updateBySub(sub, enabling);
export const setLocalPersonRoleBySub = (sub: string, role: Role) => updateBySub(sub, roleSet(role));

/** Removes a person and gives their email back (an invitation withdrawn). */
export const deleteLocalPerson = async (person: Pick<LocalPerson, 'sub' | 'email'>) => {
  await dynamo.send(new DeleteCommand({ TableName: tableName(), Key: localPersonKey(person.sub) }));
  await dynamo.send(new DeleteCommand({ TableName: tableName(), Key: localPersonEmailKey(person.email) }));
};

/**
 * A publisher's people, by email. A scan of the person items: the local provider holds a
 * handful of people on one machine (deployed, the pool's ListUsers reads every page likewise).
 */
export const listLocalPeople = async (publisherId: string): Promise<LocalPerson[]> => {
  const people: LocalPerson[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'begins_with(pk, :person) AND publisher_id = :publisher',
        ExpressionAttributeValues: { ':person': partitions.localPerson, ':publisher': publisherId },
        ExclusiveStartKey,
        ConsistentRead: true,
      }),
    );
    people.push(...(page.Items ?? []).map(personFromItem));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return people.sort((a, b) => a.email.localeCompare(b.email));
};
