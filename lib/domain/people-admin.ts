import type { Role } from '@kernel/people';
import * as clock from '../clock';
import { type PeopleDirectory, settings } from '../config';
import type { InvitePersonRequest, UpdatePersonRequest } from '../model/requests';
import type { Actor, InvitedPerson, PersonList, PersonView } from '../model/responses';
import * as local from '../storage/local-people';
import { newPassword } from '../storage/local-people';
import * as pool from '../storage/user-pool';
import { recordEvent } from './audit';
import { ConflictError, NotFoundError } from './errors';

/**
 * The publisher's people, managed by its admins (`people:manage`): list, invite, disable,
 * re-enable, change role. The people themselves live at the identity provider: the deployed
 * stage's Cognito pool (../storage/user-pool.ts), or `npm start`'s local provider
 * (../storage/local-people.ts), as PEOPLE_DIRECTORY says; without one (a publisher's own
 * provider), there are none to manage here (404).
 *
 * Invariants: a publisher sees and changes only its own people (another's are not found); no
 * change leaves the publisher without an enabled admin (409 `conflict`); every change that took
 * effect is audited (`person.invited`, `person.updated`), and one whose event cannot be recorded
 * is undone before the request fails. A change takes effect at the person's next sign-in or
 * token renewal: access tokens are not revoked, so a disabled person's token works until it
 * expires (15 minutes), and a deployed authorizer's cached answer up to 5 minutes more.
 */

const directory = (): PeopleDirectory => {
  const found = settings().peopleDirectory;
  if (!found) throw new NotFoundError('People are managed at this deployment’s own identity provider');
  return found;
};

interface Held {
  sub: string;
  email: string;
  role: Role;
  enabled: boolean;
}

const fromLocal = (p: local.LocalPerson): PersonView => ({
  person_id: p.sub,
  email: p.email,
  role: p.role,
  enabled: p.disabled_at === null,
  status: p.last_sign_in_at === null ? 'invited' : 'active',
  created_at: p.created_at,
  last_sign_in_at: p.last_sign_in_at,
});

const fromPool = (p: pool.PoolPerson): PersonView => ({
  person_id: p.sub,
  email: p.email,
  role: p.role,
  enabled: p.enabled,
  status: p.invited ? 'invited' : 'active',
  created_at: p.created_at,
  // Cognito tells no last sign-in on its user records.
  last_sign_in_at: null,
});

const everyone = async (publisherId: string): Promise<PersonView[]> => {
  const where = directory();
  const people =
    where.kind === 'local'
      ? (await local.listLocalPeople(publisherId)).map(fromLocal)
      : (await pool.listPoolPeople(where.userPoolId, publisherId)).map(fromPool);
  return people.sort((a, b) => a.email.localeCompare(b.email));
};

/** The publisher's people, by email. */
export const listPeople = async (publisherId: string): Promise<PersonList> => ({
  items: await everyone(publisherId),
});

/** One of the publisher's people; another publisher's, or no one, is not found. */
const findPerson = async (publisherId: string, personId: string): Promise<PersonView> => {
  const where = directory();
  const found =
    where.kind === 'local'
      ? await local
          .findLocalPerson(personId)
          .then((p) => (p?.publisher_id === publisherId ? fromLocal(p) : undefined))
      : await pool
          .getPoolPerson(where.userPoolId, personId)
          .then((p) => (p?.publisher_id === publisherId ? fromPool(p) : undefined));
  if (!found) throw new NotFoundError('No such person');
  return found;
};

/**
 * Invites a person to the publisher with a role. Deployed, Cognito emails them a temporary
 * password; locally the answer carries one, shown this once. An email that has an account
 * (with any publisher: one account, one publisher) is a 409.
 */
export const invitePerson = async (
  publisherId: string,
  request: InvitePersonRequest,
  actor: Actor,
): Promise<InvitedPerson> => {
  const where = directory();
  const wanted = { email: request.email.toLowerCase(), publisher_id: publisherId, role: request.role };
  let made: PersonView;
  let password: string | null = null;
  let withdraw: () => Promise<unknown>;
  try {
    if (where.kind === 'local') {
      password = newPassword();
      const person = await local.createLocalPerson(wanted, password);
      made = fromLocal(person);
      withdraw = () => local.deleteLocalPerson(person);
    } else {
      const person = await pool.invitePoolPerson(where.userPoolId, wanted);
      made = fromPool(person);
      withdraw = () => pool.deletePoolPerson(where.userPoolId, person.sub);
    }
  } catch (error) {
    if (error instanceof local.PersonExistsError || error instanceof pool.PoolPersonExistsError)
      throw new ConflictError(`${wanted.email} already has an account`);
    throw error;
  }
  try {
    await recordEvent(publisherId, made.person_id, new Date(clock.now()).toISOString(), actor, {
      type: 'person.invited',
      person: { person_id: made.person_id, email: made.email, role: made.role },
    });
  } catch (error) {
    // No invitation without its event: withdrawn (deployed, the email may have gone out; its
    // password then signs in to nothing).
    try {
      await withdraw();
    } catch {
      // Left for the operator: an invitation without its event (logged by the failed request).
    }
    throw error;
  }
  return { ...made, temporary_password: password };
};

const apply = async (where: PeopleDirectory, sub: string, from: Held, to: Held) => {
  if (where.kind === 'local') {
    if (to.role !== from.role) await local.setLocalPersonRoleBySub(sub, to.role);
    if (to.enabled !== from.enabled)
      await (to.enabled ? local.enableLocalPersonBySub(sub) : local.disableLocalPersonBySub(sub));
    return;
  }
  if (to.role !== from.role) await pool.setPoolPersonRole(where.userPoolId, sub, to.role);
  if (to.enabled !== from.enabled)
    await (to.enabled
      ? pool.enablePoolPerson(where.userPoolId, sub)
      : pool.disablePoolPerson(where.userPoolId, sub));
};

/**
 * Changes a person's role and/or whether they may sign in; what is not sent stays. A change that
 * would leave the publisher with no enabled admin (an admin demoting or disabling the last one,
 * themself included) is a 409 and changes nothing. A request that changes nothing answers the
 * person and records nothing, so a repeat is harmless.
 */
export const updatePerson = async (
  publisherId: string,
  personId: string,
  request: UpdatePersonRequest,
  actor: Actor,
): Promise<PersonView> => {
  const where = directory();
  const current = await findPerson(publisherId, personId);
  const before: Held = { sub: personId, email: current.email, role: current.role, enabled: current.enabled };
  const after: Held = {
    ...before,
    role: request.role ?? before.role,
    enabled: request.enabled ?? before.enabled,
  };
  if (after.role === before.role && after.enabled === before.enabled) return current;
  const wasAdmin = before.role === 'admin' && before.enabled;
  const staysAdmin = after.role === 'admin' && after.enabled;
  if (wasAdmin && !staysAdmin) {
    const others = (await everyone(publisherId)).filter(
      (p) => p.person_id !== personId && p.role === 'admin' && p.enabled,
    );
    if (others.length === 0)
      throw new ConflictError(
        `${before.email} is the publisher's last enabled admin: make another admin first`,
      );
  }
  await apply(where, personId, before, after);
  const occurredAt = new Date(clock.now()).toISOString();
  try {
    // The event's subject is this change: the person and when (a later identical change is another).
    await recordEvent(publisherId, `${personId}@${occurredAt}`, occurredAt, actor, {
      type: 'person.updated',
      person: { person_id: personId, email: before.email },
      before: { role: before.role, enabled: before.enabled },
      after: { role: after.role, enabled: after.enabled },
    });
  } catch (error) {
    // Put back as it was: a retry then makes (and records) the change again.
    await apply(where, personId, after, before).catch(() => undefined);
    throw error;
  }
  return { ...current, role: after.role, enabled: after.enabled };
};
