import { useEffect, useState } from 'preact/hooks';
import { type AuditFilters, readAddress, showAddress } from './address';
import { actorLabel, type Call, formatTime, type Schemas } from './api';
import { DataTable } from './data-table';
import { Field, FieldError, Notice, Pager, ScopeGate, type ScopeKnowledge, useCursorPages } from './ui';
import { check } from './validation';

/**
 * The Audit trail view: what the publisher's keys and people changed, newest first, filtered by who,
 * device, type and a range of days, the filters in the address (a reload and a link keep them).
 */

type AuditEvent = Schemas['AuditEvent'];
type AuditType = AuditEvent['type'];
export const auditTypes = [
  'ban.created',
  'ban.revoked',
  'ban.updated',
  'appeal.created',
  'appeal.decided',
  'appeal.claimed',
  'appeal.released',
  'policy.updated',
  'reasons.updated',
  'device_formats.updated',
  'publisher.updated',
  'key.created',
  'key.revoked',
  'device.erased',
  'bans.imported',
  'webhook.created',
  'webhook.deleted',
  'webhook.tested',
  'person.invited',
  'person.updated',
  'data.exported',
] as const satisfies readonly AuditType[];
// Every type the API documents is offered: this fails to compile when one is added.
const everyType: Exclude<AuditType, (typeof auditTypes)[number]> extends never ? true : never = true;
void everyType;

const summary = (event: AuditEvent): string => {
  switch (event.type) {
    case 'ban.created':
      return `ban ${event.ban_id} on ${event.device_id}: ${event.ban_type}, ${event.scope} scope, game ${event.game_id}, reason ${event.reason_code}${event.expires_at ? `, expires ${formatTime(event.expires_at)}` : ''}`;
    case 'ban.revoked':
      return `ban ${event.ban_id} on ${event.device_id} (${event.ban_type}, ${event.scope}): revoked with reason ${event.revoke_reason_code}`;
    case 'ban.updated':
      return `ban ${event.ban_id} on ${event.device_id}: expiry moved from ${event.previous_expires_at ? formatTime(event.previous_expires_at) : 'never'} to ${event.expires_at ? formatTime(event.expires_at) : 'never'}`;
    case 'appeal.created':
      return `appeal ${event.appeal.appeal_id} on ban ${event.appeal.ban_id} (${event.device_id}), filed from game ${event.appeal.filed_by.game_id}`;
    case 'appeal.decided':
      return `appeal ${event.appeal.appeal_id} on ban ${event.appeal.ban_id} (${event.device_id}): ${event.appeal.outcome ?? 'decided'}`;
    case 'appeal.claimed':
      return `appeal ${event.appeal.appeal_id} on ban ${event.appeal.ban_id} (${event.device_id}): claimed until ${formatTime(event.claimed_until)}${event.taken_over_from ? `, taken over from ${actorLabel(event.taken_over_from)}` : ''}`;
    case 'appeal.released':
      return `appeal ${event.appeal.appeal_id} on ban ${event.appeal.ban_id} (${event.device_id}): claim of ${actorLabel(event.claimed_by)} released`;
    case 'policy.updated': {
      const changed = (Object.keys(event.after) as Array<keyof typeof event.after>).filter(
        (flag) => event.after[flag] !== event.before[flag],
      );
      return changed.length
        ? changed.map((flag) => `${flag} ${event.after[flag] ? 'on' : 'off'}`).join(', ')
        : 'no flag changed';
    }
    case 'reasons.updated':
      return `reason catalogue: ${event.codes.length ? event.codes.join(', ') : 'empty'}; strict ${event.strict_reasons ? 'on' : 'off'}`;
    case 'device_formats.updated':
      return `device id formats: ${event.formats.length ? event.formats.map((f) => `${f.platform} as ${f.prefix}…`).join(', ') : 'none'}`;
    case 'publisher.updated':
      return `directory name: "${event.display_name}"${event.previous_display_name === null ? '' : ` (was "${event.previous_display_name}")`}`;
    case 'key.created':
      return `key ${event.key.key_id} "${event.key.name}": ${event.key.scopes.join(' ')}; games ${event.key.games?.join(', ') ?? 'all'}`;
    case 'key.revoked':
      return `key ${event.key.key_id} "${event.key.name}"`;
    case 'device.erased':
      return `${event.device_id}: ${event.erased_bans} ${event.erased_bans === 1 ? 'ban' : 'bans'} erased`;
    case 'bans.imported':
      return `import batch ${event.batch_id}: ${event.created} created, ${event.already_imported} already imported, ${event.changed} changed, ${event.refused} refused`;
    case 'webhook.created':
      return `webhook ${event.webhook.webhook_id} to ${event.webhook.url_origin}: ${event.webhook.events.join(' ')}; games ${event.webhook.games?.join(', ') ?? 'all'}`;
    case 'webhook.deleted':
      return `webhook ${event.webhook.webhook_id} to ${event.webhook.url_origin}`;
    case 'person.invited':
      return `${event.person.email} invited as ${event.person.role}`;
    case 'person.updated':
      return `${event.person.email}: ${event.before.role === event.after.role ? event.after.role : `${event.before.role} to ${event.after.role}`}, ${event.after.enabled ? 'enabled' : 'disabled'}${event.before.enabled === event.after.enabled ? '' : event.after.enabled ? ' again' : ''}`;
    case 'webhook.tested':
      return `webhook ${event.webhook.webhook_id} to ${event.webhook.url_origin}: test event ${event.test_event_id} sent`;
    case 'data.exported':
      if (event.kind === 'job')
        return `export job ${event.export_id ?? ''} of ${(event.kinds ?? []).join(', ')} as of ${formatTime(event.as_of)}`;
      return event.device_id === undefined
        ? `export of ${event.kind} as of ${formatTime(event.as_of)}`
        : `everything held on ${event.device_id} exported`;
  }
};

/** The day's first instant in the moderator's own time zone (`YYYY-MM-DD`), `after` days later. */
const dayStart = (day: string, after = 0): string | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return undefined;
  const date = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + after);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
};

/** Today in the moderator's own time zone, as the address and the date fields write it. */
export const today = (now = new Date()) =>
  `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;

/** The address of one actor's trail (a key's id, a person's `sub`) from `from` (a day) on: Start's links. */
export const actorTrail = (actor: string, from?: string): AuditFilters => ({
  actor,
  ...(from ? { from } : {}),
});

const isAuditType = (value: string | undefined): value is AuditType =>
  (auditTypes as readonly string[]).includes(value ?? '');

/** Who made an event, as the `actor` filter names them: a person by `sub`, a key by id (the keys tool: none). */
const actorIdOf = (actor: Schemas['Actor']) => (actor.type === 'user' ? actor.sub : actor.key_id);

type FieldErrors = Partial<Record<'actor' | 'device' | 'from' | 'to', string>>;

/** The filters' problems, each in the words the field shows; none: the query the API is sent. */
const checkFilters = (filters: AuditFilters): FieldErrors => {
  const errors: FieldErrors = {};
  if (filters.actor && !/^[\x21-\x7e]{1,255}$/.test(filters.actor))
    errors.actor = "Who must be a key's id or a person's id: no spaces";
  const device = filters.device && check('device_id', filters.device);
  if (device) errors.device = `Device ID ${device}`;
  if (filters.from && !dayStart(filters.from)) errors.from = 'From must be a date';
  if (filters.to && !dayStart(filters.to)) errors.to = 'To must be a date';
  if (filters.from && filters.to && !errors.from && !errors.to && filters.to < filters.from)
    errors.to = 'To must be the same day as From or later';
  return errors;
};

/** The API's query for the filters: days become their instants, `to` the end of its day. */
const auditQuery = (filters: AuditFilters) => {
  const from = filters.from ? dayStart(filters.from) : undefined;
  const to = filters.to ? dayStart(filters.to, 1) : undefined;
  return {
    ...(filters.actor ? { actor: filters.actor } : {}),
    ...(filters.device ? { device_id: filters.device } : {}),
    ...(isAuditType(filters.type) ? { type: filters.type } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
  };
};

/** The address's filters, kept only when they are filters the view can send. */
const addressFilters = (): AuditFilters => {
  const filters = readAddress().audit ?? {};
  return { ...filters, type: isAuditType(filters.type) ? filters.type : undefined };
};

export const AuditView = ({ call, knowledge }: { call: Call; knowledge: ScopeKnowledge }) => {
  const [draft, setDraft] = useState<AuditFilters>(addressFilters);
  const [errors, setErrors] = useState<FieldErrors>({});
  // Whom the list offers: the publisher's keys (with keys:manage) and everyone seen in the trail.
  const [known, setKnown] = useState<ReadonlyMap<string, string>>(new Map());
  const { page, message, setMessage, busy, first, pager } = useCursorPages(
    (filters: AuditFilters, cursor) =>
      call('get', '/v1/audit', {
        query: { limit: 25, ...auditQuery(filters), ...(cursor ? { cursor } : {}) },
      }),
    addressFilters(),
  );
  const set = (name: keyof AuditFilters) => (value: string) => setDraft((d) => ({ ...d, [name]: value }));

  /** The filters shown and read: checked, then in the address (a new entry: Back returns to the last). */
  const apply = (filters: AuditFilters, { push }: { push: boolean }) => {
    const problems = checkFilters(filters);
    setErrors(problems);
    const problem = Object.values(problems)[0];
    if (problem) {
      setMessage({ kind: 'error', text: `${problem}.` });
      return;
    }
    const clean: AuditFilters = {};
    for (const [name, value] of Object.entries(filters) as Array<[keyof AuditFilters, string | undefined]>)
      if (value?.trim()) clean[name] = value.trim();
    if (push) showAddress({ view: 'audit', audit: clean });
    void first(clean);
  };

  useEffect(() => {
    if (knowledge['audit:read'].held !== false) apply(addressFilters(), { push: false });
    if (knowledge['keys:manage'].held === true)
      void call('get', '/v1/keys', { query: { limit: 200 } }).then((answer) => {
        if (answer.status !== 200) return;
        setKnown((k) => new Map([...answer.body.items.map((key) => [key.key_id, key.name] as const), ...k]));
      });
    // Back and Forward between filters, and a link to another trail: the address's filters, read.
    const follow = () => {
      if (readAddress().view !== 'audit') return;
      const filters = addressFilters();
      setDraft(filters);
      apply(filters, { push: false });
    };
    addEventListener('popstate', follow);
    return () => removeEventListener('popstate', follow);
  }, []);

  useEffect(() => {
    const seen = (page?.items ?? [])
      .map((event) => [actorIdOf(event.actor), actorLabel(event.actor)] as const)
      .filter((entry): entry is readonly [string, string] => entry[0] !== null);
    if (seen.some(([id]) => !known.has(id))) setKnown((k) => new Map([...k, ...seen]));
  }, [page]);

  const search = (e: Event) => {
    e.preventDefault();
    apply(draft, { push: true });
  };
  const described = (name: keyof FieldErrors) => (errors[name] ? `audit-${name}-error` : undefined);

  return (
    <section aria-labelledby="audit-heading" class="panel">
      <h2 id="audit-heading">Audit trail</h2>
      <ScopeGate scope="audit:read" known={knowledge} what="The audit trail">
        <form class="filters" noValidate onSubmit={search}>
          <div class="field">
            <label for="audit-actor">Who (a key or person)</label>
            <input
              id="audit-actor"
              list="audit-actors"
              value={draft.actor ?? ''}
              autoComplete="off"
              spellcheck={false}
              aria-invalid={errors.actor ? true : undefined}
              aria-describedby={described('actor')}
              onInput={(e) => set('actor')((e.currentTarget as HTMLInputElement).value)}
            />
            <datalist id="audit-actors">
              {[...known].map(([id, label]) => (
                <option key={id} value={id} label={label} />
              ))}
            </datalist>
            <FieldError id="audit-actor" error={errors.actor} />
          </div>
          <Field
            id="audit-device"
            label="Filter by device ID"
            value={draft.device ?? ''}
            onValue={set('device')}
            error={errors.device}
          />
          <div class="field">
            <label for="audit-type">Event type</label>
            <select
              id="audit-type"
              value={draft.type ?? ''}
              onChange={(e) => set('type')((e.currentTarget as HTMLSelectElement).value)}
            >
              <option value="">every type</option>
              {auditTypes.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </div>
          <Field
            id="audit-from"
            label="From (day)"
            type="date"
            value={draft.from ?? ''}
            onValue={set('from')}
            error={errors.from}
          />
          <Field
            id="audit-to"
            label="To (day, included)"
            type="date"
            value={draft.to ?? ''}
            onValue={set('to')}
            error={errors.to}
          />
          <button type="submit" disabled={busy}>
            Show events
          </button>
        </form>
        <Notice message={message} />
        {page && (
          <DataTable
            label="Audit events table"
            caption={`Audit events, newest first (page ${pager.number})`}
            columns={['When', 'Type', 'Actor', 'What']}
            count={page.items.length}
            empty="No events match."
          >
            {page.items.map((event) => (
              <tr key={event.event_id}>
                <td>{formatTime(event.occurred_at)}</td>
                <th scope="row">{event.type}</th>
                <td>{actorLabel(event.actor)}</td>
                <td>{summary(event)}</td>
              </tr>
            ))}
          </DataTable>
        )}
        {page && <Pager {...pager} />}
      </ScopeGate>
    </section>
  );
};
