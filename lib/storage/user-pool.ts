import {
  AdminCreateUserCommand,
  AdminDeleteUserCommand,
  AdminDisableUserCommand,
  AdminEnableUserCommand,
  AdminGetUserCommand,
  AdminUpdateUserAttributesCommand,
  AdminUserGlobalSignOutCommand,
  type AttributeType,
  CognitoIdentityProviderClient,
  ListUsersCommand,
} from '@aws-sdk/client-cognito-identity-provider';
import { COGNITO_PUBLISHER_ATTRIBUTE, COGNITO_ROLE_ATTRIBUTE, isRole, type Role } from '@kernel/people';

/**
 * The deployed stage's people: the stack's Cognito user pool, which keeps them, their passwords
 * and their second factor. Module-scope client, reused across invocations; the pool is the bound
 * settings' (PEOPLE_DIRECTORY), passed in at call time. The functions that call it hold exactly
 * these actions on that one pool (lib/routes.ts `userPool`, infra/stack).
 */
const cognito = new CognitoIdentityProviderClient({ maxAttempts: 3 });

export interface PoolPerson {
  sub: string;
  email: string;
  publisher_id: string;
  role: Role;
  enabled: boolean;
  /** FORCE_CHANGE_PASSWORD until their first sign-in. */
  invited: boolean;
  created_at: string;
}

const attribute = (attributes: readonly AttributeType[] | undefined, name: string) =>
  attributes?.find((a) => a.Name === name)?.Value ?? '';

const personOf = (user: {
  Attributes?: AttributeType[];
  UserAttributes?: AttributeType[];
  Enabled?: boolean;
  UserStatus?: string;
  UserCreateDate?: Date;
}): PoolPerson | undefined => {
  const attributes = user.Attributes ?? user.UserAttributes;
  const role = attribute(attributes, COGNITO_ROLE_ATTRIBUTE);
  const sub = attribute(attributes, 'sub');
  // A user without a publisher or a known role signs in to nothing (functions/token-claims.ts):
  // not one of anyone's people.
  if (!sub || !isRole(role) || !attribute(attributes, COGNITO_PUBLISHER_ATTRIBUTE)) return undefined;
  return {
    sub,
    email: attribute(attributes, 'email'),
    publisher_id: attribute(attributes, COGNITO_PUBLISHER_ATTRIBUTE),
    role,
    enabled: user.Enabled !== false,
    invited: user.UserStatus === 'FORCE_CHANGE_PASSWORD',
    created_at: (user.UserCreateDate ?? new Date(0)).toISOString(),
  };
};

/** Every person of the pool naming this publisher. Cognito cannot filter on a custom attribute: every page is read. */
export const listPoolPeople = async (poolId: string, publisherId: string): Promise<PoolPerson[]> => {
  const people: PoolPerson[] = [];
  let PaginationToken: string | undefined;
  do {
    const page = await cognito.send(new ListUsersCommand({ UserPoolId: poolId, PaginationToken }));
    for (const user of page.Users ?? []) {
      const person = personOf(user);
      if (person?.publisher_id === publisherId) people.push(person);
    }
    PaginationToken = page.PaginationToken;
  } while (PaginationToken);
  return people;
};

const isUserMissing = (error: unknown) => (error as { name?: string }).name === 'UserNotFoundException';

/** The pool's person `sub` (an alias of their username), or undefined. */
export const getPoolPerson = async (poolId: string, sub: string): Promise<PoolPerson | undefined> => {
  try {
    const user = await cognito.send(new AdminGetUserCommand({ UserPoolId: poolId, Username: sub }));
    return personOf(user);
  } catch (error) {
    if (isUserMissing(error)) return undefined;
    throw error;
  }
};

export class PoolPersonExistsError extends Error {}

/** Makes the person; Cognito emails them a temporary password (and asks for TOTP at the first sign-in). */
export const invitePoolPerson = async (
  poolId: string,
  person: { email: string; publisher_id: string; role: Role },
): Promise<PoolPerson> => {
  try {
    const { User } = await cognito.send(
      new AdminCreateUserCommand({
        UserPoolId: poolId,
        Username: person.email,
        DesiredDeliveryMediums: ['EMAIL'],
        UserAttributes: [
          { Name: 'email', Value: person.email },
          { Name: 'email_verified', Value: 'true' },
          { Name: COGNITO_PUBLISHER_ATTRIBUTE, Value: person.publisher_id },
          { Name: COGNITO_ROLE_ATTRIBUTE, Value: person.role },
        ],
      }),
    );
    const made = User && personOf(User);
    if (!made) throw new Error('Cognito answered AdminCreateUser without the user');
    return made;
  } catch (error) {
    if ((error as { name?: string }).name === 'UsernameExistsException')
      throw new PoolPersonExistsError(`${person.email} already has an account`);
    throw error;
  }
};

export const setPoolPersonRole = (poolId: string, sub: string, role: Role) =>
  cognito.send(
    new AdminUpdateUserAttributesCommand({
      UserPoolId: poolId,
      Username: sub,
      UserAttributes: [{ Name: COGNITO_ROLE_ATTRIBUTE, Value: role }],
    }),
  );

/** Disables the person and revokes their refresh tokens: no sign-in and no renewal from now on. */
export const disablePoolPerson = async (poolId: string, sub: string) => {
  await cognito.send(new AdminDisableUserCommand({ UserPoolId: poolId, Username: sub }));
  await cognito.send(new AdminUserGlobalSignOutCommand({ UserPoolId: poolId, Username: sub }));
};

export const enablePoolPerson = (poolId: string, sub: string) =>
  cognito.send(new AdminEnableUserCommand({ UserPoolId: poolId, Username: sub }));

/** Withdraws an invitation whose audit event could not be recorded. */
export const deletePoolPerson = (poolId: string, sub: string) =>
  cognito.send(new AdminDeleteUserCommand({ UserPoolId: poolId, Username: sub }));
