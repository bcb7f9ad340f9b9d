import { useEffect, useState } from 'preact/hooks';
import { actorLabel, type Call, formatTime, type Schemas } from './api';
import { DataTable } from './data-table';
import { Field, Notice, Pager, ScopeGate, type ScopeKnowledge, useCursorPages } from './ui';
import { check } from './validation';

/** The Audit trail view: what the publisher's keys changed, newest first, filtered by type and device. */

type AuditEvent = Schemas['AuditEvent'];
type AuditType = AuditEvent['type'];
export const auditTypes = [
  'ban.created',
  'ban.revoked',
  'ban.updated',
  'appeal.created',
  'appeal.decided',
  'policy.updated',
  'reasons.updated',
  'publisher.updated',
  'key.created',
  'key.revoked',
  'device.erased',
  'webhook.created',
  'webhook.deleted',
  'webhook.tested',
  'person.invited',
  'person.updated',
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
    case 'publisher.updated':
      return `directory name: "${event.display_name}"${event.previous_display_name === null ? '' : ` (was "${event.previous_display_name}")`}`;
    case 'key.created':
      return `key ${event.key.key_id} "${event.key.name}": ${event.key.scopes.join(' ')}; games ${event.key.games?.join(', ') ?? 'all'}`;
    case 'key.revoked':
      return `key ${event.key.key_id} "${event.key.name}"`;
    case 'device.erased':
      return `${event.device_id}: ${event.erased_bans} ${event.erased_bans === 1 ? 'ban' : 'bans'} erased`;
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
  }
};

export const AuditView = ({ call, knowledge }: { call: Call; knowledge: ScopeKnowledge }) => {
  const [type, setType] = useState<'' | AuditType>('');
  const [deviceId, setDeviceId] = useState('');
  const [deviceError, setDeviceError] = useState<string | undefined>();
  const { page, message, setMessage, busy, first, pager } = useCursorPages(
    (filters: { type: '' | AuditType; device: string }, cursor) =>
      call('get', '/v1/audit', {
        query: {
          limit: 25,
          ...(filters.type ? { type: filters.type } : {}),
          ...(filters.device ? { device_id: filters.device } : {}),
          ...(cursor ? { cursor } : {}),
        },
      }),
    { type: '', device: '' },
  );

  const search = (e: Event) => {
    e.preventDefault();
    const device = deviceId.trim();
    const problem = device === '' ? undefined : check('device_id', device);
    setDeviceError(problem ? `Device ID ${problem}` : undefined);
    if (problem) {
      setMessage({ kind: 'error', text: `Device ID ${problem}.` });
      return;
    }
    void first({ type, device });
  };

  useEffect(() => {
    if (knowledge['audit:read'].held !== false) void first();
  }, []);

  return (
    <section aria-labelledby="audit-heading" class="panel">
      <h2 id="audit-heading">Audit trail</h2>
      <ScopeGate scope="audit:read" known={knowledge} what="The audit trail">
        <form class="filters" noValidate onSubmit={search}>
          <div class="field">
            <label for="audit-type">Event type</label>
            <select
              id="audit-type"
              value={type}
              onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value as '' | AuditType)}
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
            id="audit-device"
            label="Filter by device ID"
            value={deviceId}
            onValue={setDeviceId}
            error={deviceError}
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
