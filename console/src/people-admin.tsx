import { type Role, roles } from '@kernel/people';
import { useEffect, useState } from 'preact/hooks';
import { type Call, formatTime, type Schemas } from './api';
import { DataTable } from './data-table';
import { useDraft } from './drafts';
import { OnceSecret } from './secret';
import { ConfirmStep, Field, Notice, refocus, type ScopeKnowledge } from './ui';
import { useForm } from './use-form';
import { useRequest } from './use-request';

/**
 * The People view (admins, `people:manage`): the publisher's people, inviting one, and changing a
 * person's role or whether they may sign in, each change confirmed first. The API refuses a change
 * that leaves no enabled admin (409); the view shows its message.
 */

type Person = Schemas['Person'];
type Invited = Schemas['InvitedPerson'];

/** A change asked for, waiting for its confirmation. */
type Change = { person: Person } & ({ role: Role } | { enabled: boolean });

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

const roleUses: Record<Role, string> = {
  viewer: 'reads bans, the policy and the audit trail',
  moderator: 'also makes and revokes bans and decides appeals',
  admin: 'everything: the policy, keys, webhooks and people',
};

const InviteForm = ({ call, onInvited }: { call: Call; onInvited: (person: Invited) => void }) => {
  const request = useRequest();
  const { busy, message } = request;
  const blank = { email: '', role: 'viewer' as Role };
  const form = useForm(blank, request);
  // The address and role survive a reload or a new sign-in (drafts.ts).
  const draft = useDraft('person-invite', form, blank, ['email', 'role']);
  const { email, role } = form.values;
  const submit = (e: Event) => {
    e.preventDefault();
    const found = { email: EMAIL.test(email.trim()) ? undefined : 'Email must be an email address' };
    if (!form.accept(found, 'Nobody was invited: correct the fields marked below.', true)) return;
    void request.run(
      () => call('post', '/v1/people', { body: { email: email.trim(), role } }),
      (answer) => {
        form.reset(['email']);
        draft.clear();
        onInvited(answer.body);
      },
      (answer) => answer.status === 201,
    );
  };
  return (
    <section aria-labelledby="invite-heading" class="panel">
      <h3 id="invite-heading">Invite a person</h3>
      <form onSubmit={submit} noValidate>
        <Field
          id="invite-email"
          label="Email"
          value={email}
          onValue={form.set('email')}
          error={form.error('email')}
          hint="They sign in with it; one account belongs to one publisher."
          required
        />
        <div class="field">
          <label for="invite-role">Role</label>
          <select
            id="invite-role"
            value={role}
            onChange={(e) => form.set('role')((e.currentTarget as HTMLSelectElement).value as Role)}
          >
            {roles.map((r) => (
              <option key={r} value={r}>
                {r}: {roleUses[r]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={busy}>
          {busy ? 'Inviting…' : 'Invite'}
        </button>
      </form>
      <Notice message={message} />
    </section>
  );
};

const changeTitle = (change: Change) =>
  'role' in change
    ? `Make ${change.person.email} a ${change.role}?`
    : `${change.enabled ? 'Enable' : 'Disable'} ${change.person.email}?`;

export const PeopleView = ({ call, knowledge }: { call: Call; knowledge: ScopeKnowledge }) => {
  const [people, setPeople] = useState<Person[] | null>(null);
  const [invited, setInvited] = useState<Invited | null>(null);
  const [asked, setAsked] = useState<Change | null>(null);
  // The role each person's picker shows, before its change is confirmed.
  const [picked, setPicked] = useState<Record<string, Role>>({});
  const listing = useRequest();
  const changing = useRequest();
  const busy = listing.busy || changing.busy;
  const held = knowledge['people:manage'].held;

  const list = () =>
    listing.run(
      () => call('get', '/v1/people', {}),
      (answer) => setPeople(answer.body.items),
    );
  useEffect(() => {
    if (held !== false) void list();
  }, []);

  if (held === false)
    return (
      <section aria-labelledby="people-heading" class="panel">
        <h2 id="people-heading">People</h2>
        <p class="gate">
          People are hidden: managing them needs the scope <code>people:manage</code>, which this session
          lacks ({knowledge['people:manage'].note}).
        </p>
      </section>
    );

  const apply = (change: Change) =>
    changing.run(
      () =>
        call('put', '/v1/people/{person_id}', {
          path: { person_id: change.person.person_id },
          body: 'role' in change ? { role: change.role } : { enabled: change.enabled },
        }),
      (answer) => {
        setAsked(null);
        setPicked({});
        changing.setMessage({
          kind: 'ok',
          text: `${answer.body.email} is now a ${answer.body.role}, ${answer.body.enabled ? 'enabled' : 'disabled'}. It holds from their next sign-in or token renewal (at most 15 minutes).`,
        });
        void list();
      },
      (answer) => answer.status === 200,
    );

  return (
    <section aria-labelledby="people-heading" class="panel">
      <h2 id="people-heading">People</h2>
      {invited?.temporary_password && (
        <OnceSecret
          id="invited-password"
          title={`${invited.email} invited as ${invited.role}`}
          label="Their one-time password"
          value={invited.temporary_password}
          onHide={() => setInvited(null)}
        />
      )}
      {invited && invited.temporary_password === null && (
        <p role="status">{invited.email} was emailed an invitation with a temporary password.</p>
      )}
      <Notice message={listing.message} />
      <Notice message={changing.message} />
      {people && (
        <DataTable
          label="People table"
          caption="People of your publisher, by email"
          columns={['Email', 'Role', 'Status', 'Sign-in', 'Invited', 'Last sign-in']}
          actions
        >
          {people.map((p) => (
            <tr key={p.person_id}>
              <th scope="row">{p.email}</th>
              <td>
                <label class="visually-hidden" for={`role-${p.person_id}`}>
                  Role of {p.email}
                </label>
                <select
                  id={`role-${p.person_id}`}
                  value={picked[p.person_id] ?? p.role}
                  disabled={busy}
                  onChange={(e) => {
                    const role = (e.currentTarget as HTMLSelectElement).value as Role;
                    setPicked({ ...picked, [p.person_id]: role });
                    if (role !== p.role) setAsked({ person: p, role });
                  }}
                >
                  {roles.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </select>
              </td>
              <td>{p.status}</td>
              <td>{p.enabled ? 'enabled' : 'disabled'}</td>
              <td>{formatTime(p.created_at)}</td>
              <td>{p.last_sign_in_at === null ? '—' : formatTime(p.last_sign_in_at)}</td>
              <td class="sticky-end">
                <button
                  type="button"
                  class="small"
                  aria-label={`${p.enabled ? 'Disable' : 'Enable'} ${p.email}`}
                  disabled={busy}
                  onClick={() => setAsked({ person: p, enabled: !p.enabled })}
                >
                  {p.enabled ? 'Disable' : 'Enable'}
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {asked && (
        <ConfirmStep
          id="person-change-heading"
          title={changeTitle(asked)}
          action={'role' in asked ? 'Change role' : asked.enabled ? 'Enable' : 'Disable'}
          busyAction="Saving…"
          busy={busy}
          onConfirm={() => void apply(asked)}
          onCancel={() => {
            setPicked({});
            refocus(
              'role' in asked
                ? `Role of ${asked.person.email}`
                : `${asked.enabled ? 'Enable' : 'Disable'} ${asked.person.email}`,
            );
            setAsked(null);
          }}
        >
          <p>
            {'role' in asked
              ? `They become a ${asked.role} (${roleUses[asked.role]}) at their next sign-in or token renewal.`
              : asked.enabled
                ? 'They may sign in again, with the password they had.'
                : 'They cannot sign in, and their session is not renewed: it ends within 15 minutes. Keys they made keep working until revoked.'}
          </p>
        </ConfirmStep>
      )}
      <InviteForm
        call={call}
        onInvited={(person) => {
          setInvited(person);
          void list();
        }}
      />
    </section>
  );
};
