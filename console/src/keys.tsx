import { useEffect, useState } from 'preact/hooks';
import { actorLabel, type Call, formatTime, type Schemas, type Scope, scopes, scopeUses } from './api';
import { DataTable } from './data-table';
import { useDraft } from './drafts';
import { OnceSecret } from './secret';
import type { Session } from './session';
import { ChoiceList, ConfirmStep, Field, Notice, refocus, type ScopeKnowledge } from './ui';
import { ruleError, useForm } from './use-form';
import { useRequest } from './use-request';
import { parseExpiry, parseGames } from './validation';

/** Pages of 200 the keys view reads at most: 2,000 keys, revoked ones included. */
const MAX_KEY_PAGES = 10;

/** The API keys view: the publisher's keys, revoking one, and making a scoped, game-bound key shown once. */

type ApiKey = Schemas['ListedApiKey'];
type NewApiKey = Schemas['NewApiKey'];

const keyStatus = (key: ApiKey, now = new Date().toISOString()) =>
  key.revoked_at !== null
    ? 'revoked'
    : key.expires_at !== null && key.expires_at <= now
      ? 'expired'
      : 'active';

/**
 * Every page of the listing (live keys are at most 100; revoked ones stay listed) as one answer,
 * or the refusal of the page that was refused.
 */
const everyKey = async (call: Call) => {
  const all: ApiKey[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_KEY_PAGES; page++) {
    const answer = await call('get', '/v1/keys', { query: { limit: 200, ...(cursor ? { cursor } : {}) } });
    if (answer.status !== 200) return answer;
    all.push(...answer.body.items);
    if (answer.body.next_cursor === null) break;
    cursor = answer.body.next_cursor;
  }
  return { ok: true as const, status: 200 as const, body: all, retryAfter: null };
};

const CreateKeyForm = ({
  call,
  knowledge,
  onCreated,
}: {
  call: Call;
  knowledge: ScopeKnowledge;
  onCreated: (key: NewApiKey) => void;
}) => {
  const request = useRequest();
  const { busy, message } = request;
  const blank = { name: '', chosen: ['bans:read'] as Scope[], games: '', expires: '' };
  const form = useForm(blank, request);
  // The typing survives a reload or a new sign-in (drafts.ts); the scopes are ticked again.
  const draft = useDraft('key-create', form, blank, ['name', 'games', 'expires']);
  const { name, chosen, games, expires } = form.values;

  const submit = (e: Event) => {
    e.preventDefault();
    const parsedGames = parseGames(games);
    const expiry = parseExpiry(expires);
    const found = {
      name: ruleError('Key name', 'key_name', name.trim()),
      scopes: chosen.length === 0 ? 'Choose at least one scope' : undefined,
      games: parsedGames.ok ? undefined : parsedGames.message,
      expires_at: expiry.ok ? undefined : expiry.message,
    };
    const refusal = 'The key was not created: correct the fields marked below.';
    if (!form.accept(found, refusal, parsedGames.ok && expiry.ok) || !parsedGames.ok || !expiry.ok) return;
    const body: Schemas['CreateKeyRequest'] = {
      name: name.trim(),
      scopes: scopes.filter((s) => chosen.includes(s)),
      ...(parsedGames.value ? { games: parsedGames.value } : {}),
      ...(expiry.value ? { expires_at: expiry.value } : {}),
    };
    void request.run(
      () => call('post', '/v1/keys', { body }),
      (answer) => {
        form.reset(['name', 'games', 'expires']);
        draft.clear();
        onCreated(answer.body);
      },
      (answer) => answer.status === 201,
    );
  };

  return (
    <section aria-labelledby="create-key-heading" class="panel">
      <h3 id="create-key-heading">Create a key</h3>
      <form onSubmit={submit} noValidate>
        <Field
          id="key-name"
          label="Key name"
          value={name}
          onValue={form.set('name')}
          error={form.error('name')}
          hint="1-64 characters, e.g. eu game servers"
          required
        />
        <ChoiceList
          id="key-scope"
          legend="Scopes"
          options={scopes}
          chosen={chosen}
          onChosen={form.set('chosen')}
          help={(scope) =>
            `${scopeUses[scope]}${knowledge[scope].held === false ? ' (your key lacks it, so it cannot grant it)' : ''}`
          }
          error={form.error('scopes')}
        />
        <Field
          id="key-games"
          label="Key games (optional)"
          value={games}
          onValue={form.set('games')}
          error={form.error('games')}
          hint="Game IDs separated by commas: the key works only in them. Empty: every game."
        />
        <Field
          id="key-expires"
          label="Key expires at (optional)"
          type="datetime-local"
          value={expires}
          onValue={form.set('expires')}
          error={form.error('expires_at')}
          hint="Your local time. Empty: a key you make signed in as a person expires in 90 days; one made with a key does not expire."
        />
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </form>
      <Notice message={message} />
    </section>
  );
};

export const KeysView = ({
  call,
  knowledge,
  session,
  onRevokedOwnKey,
}: {
  call: Call;
  knowledge: ScopeKnowledge;
  session: Session;
  onRevokedOwnKey: () => void;
}) => {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [created, setCreated] = useState<NewApiKey | null>(null);
  // The list read, and a revocation: each with its own outcome.
  const listing = useRequest();
  const revocation = useRequest();
  const busy = listing.busy || revocation.busy;

  const list = () =>
    listing.run(
      () => everyKey(call),
      (answer) => setKeys(answer.body),
    );

  useEffect(() => {
    if (knowledge['keys:manage'].held !== false) void list();
  }, []);

  if (knowledge['keys:manage'].held === false)
    return (
      <section aria-labelledby="keys-heading" class="panel">
        <h2 id="keys-heading">API keys</h2>
        <p class="gate">
          Keys are hidden: managing them needs the scope <code>keys:manage</code>, which this session lacks (
          {knowledge['keys:manage'].note}).
        </p>
      </section>
    );

  const own = session.identity?.key_id;
  const revoke = (key: ApiKey) =>
    revocation.run(
      () => call('post', '/v1/keys/{key_id}/revoke', { path: { key_id: key.key_id } }),
      () => {
        setRevoking(null);
        if (key.key_id === own) {
          onRevokedOwnKey();
          return;
        }
        revocation.setMessage({ kind: 'ok', text: `Key ${key.key_id} (${key.name}) revoked.` });
        void list();
      },
      (answer) => answer.status === 200,
    );

  return (
    <section aria-labelledby="keys-heading" class="panel">
      <h2 id="keys-heading">API keys</h2>
      {created && (
        <OnceSecret
          id="new-key"
          title={`New key ${created.name} (${created.key_id})`}
          label="New API key"
          value={created.api_key}
          onHide={() => setCreated(null)}
        />
      )}
      <Notice message={listing.message} />
      <Notice message={revocation.message} />
      {keys && (
        <DataTable
          label="Keys table"
          caption="Keys of your publisher, oldest first"
          columns={[
            'Key',
            'Name',
            'Scopes',
            'Games',
            'Created',
            'Made by',
            'Expires',
            'Status',
            'Ends in',
            'Last used',
          ]}
          actions
        >
          {keys.map((key) => (
            <tr key={key.key_id}>
              <th scope="row">
                {key.key_id}
                {key.key_id === own ? ' (this key)' : ''}
              </th>
              <td>{key.name}</td>
              <td>{key.scopes.join(' ')}</td>
              <td>{key.games === null ? 'every game' : key.games.join(', ')}</td>
              <td>{formatTime(key.created_at)}</td>
              <td>{key.created_by ? actorLabel(key.created_by) : '—'}</td>
              <td>{key.expires_at === null ? 'never' : formatTime(key.expires_at)}</td>
              <td>{keyStatus(key)}</td>
              <td>{key.last4 ? `…${key.last4}` : '—'}</td>
              <td>{key.last_used_at === null ? 'not yet' : formatTime(key.last_used_at)}</td>
              <td class="sticky-end">
                {key.revoked_at === null && (
                  <button
                    type="button"
                    class="small"
                    aria-label={`Revoke key ${key.key_id}`}
                    disabled={busy}
                    onClick={() => setRevoking(key)}
                  >
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {revoking && (
        <ConfirmRevoke
          keyToRevoke={revoking}
          own={revoking.key_id === own}
          busy={busy}
          onConfirm={() => void revoke(revoking)}
          onCancel={() => {
            refocus(`Revoke key ${revoking.key_id}`);
            setRevoking(null);
          }}
        />
      )}
      <CreateKeyForm
        call={call}
        knowledge={knowledge}
        onCreated={(key) => {
          setCreated(key);
          void list();
        }}
      />
    </section>
  );
};

const ConfirmRevoke = ({
  keyToRevoke,
  own,
  busy,
  onConfirm,
  onCancel,
}: {
  keyToRevoke: ApiKey;
  own: boolean;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) => (
  <ConfirmStep
    id="revoke-key-heading"
    title={`Revoke key ${keyToRevoke.key_id} (${keyToRevoke.name})?`}
    action="Revoke key"
    busyAction="Revoking…"
    busy={busy}
    onConfirm={onConfirm}
    onCancel={onCancel}
  >
    <p>
      Whatever uses it is refused from now on (a deployed API may accept it for up to 5 minutes).
      {own ? ' This is the key you are signed in with: the console will sign out.' : ''}
    </p>
  </ConfirmStep>
);
