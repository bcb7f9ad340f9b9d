import { addressHash } from './address';
import { type AnyAnswer, actorLabel, type Call, type Schemas } from './api';
import { actorTrail, auditTypes, today } from './audit';
import { DataTable } from './data-table';
import { type Found, found, PanelRead } from './start-panel';
import { TimeText } from './ui';
import { useReadEach } from './ui-read';

/**
 * Today's activity by person, from the audit trail (`audit:read`): today is the moderator's own
 * day, since midnight in the browser's time zone.
 */

type AuditEvent = Schemas['AuditEvent'];
type AuditType = AuditEvent['type'];

/** The audit trail is read 200 events a page, at most 5 pages: beyond that, "at least". */
const AUDIT_PAGE = 200;
const AUDIT_PAGES = 5;

/** Midnight today in the moderator's own time zone, as an instant. */
const startOfToday = (now = new Date()) =>
  new Date(now.getFullYear(), now.getMonth(), now.getDate()).toISOString();

interface ActorDay {
  label: string;
  /** The `actor` filter that finds their events: a key's id, a person's `sub` (the keys tool: none). */
  id: string | null;
  total: number;
  counts: Partial<Record<AuditType, number>>;
}

interface Day {
  since: string;
  events: number;
  /** The cap was reached with today's events still coming: the numbers are at least these. */
  capped: boolean;
  actors: ActorDay[];
  /** The event types that occurred today, in the audit view's order: the table's columns. */
  types: AuditType[];
}

/** Who made an event, as one identity: a person by their `sub`, a key by its id (the keys tool by its name). */
const actorKey = (actor: Schemas['Actor']) =>
  actor.type === 'user' ? `user ${actor.sub}` : `key ${actor.key_id ?? `(none) ${actor.name}`}`;

/** Today's events grouped by who made them: most active first, then by name. */
const groupByActor = (events: readonly AuditEvent[]): Pick<Day, 'actors' | 'types'> => {
  const groups = new Map<string, ActorDay>();
  for (const event of events) {
    const key = actorKey(event.actor);
    // Newest first: a person's email and role, a key's name, as they were last.
    const id = event.actor.type === 'user' ? event.actor.sub : event.actor.key_id;
    const group = groups.get(key) ?? { label: actorLabel(event.actor), id, total: 0, counts: {} };
    group.total += 1;
    group.counts[event.type] = (group.counts[event.type] ?? 0) + 1;
    groups.set(key, group);
  }
  const actors = [...groups.values()].sort((a, b) => b.total - a.total || a.label.localeCompare(b.label));
  const types = auditTypes.filter((type) => actors.some((a) => a.counts[type]));
  return { actors, types };
};

const readToday = async (call: Call): Promise<Found<Day> | AnyAnswer> => {
  const since = startOfToday();
  const sinceMs = Date.parse(since);
  const today: AuditEvent[] = [];
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    // Today's events only: the trail's time range, so yesterday's are never read.
    const answer = await call('get', '/v1/audit', {
      query: { limit: AUDIT_PAGE, from: since, ...(cursor ? { cursor } : {}) },
    });
    if (answer.status !== 200) return answer;
    const { items, next_cursor } = answer.body;
    const ofToday = items.filter((event) => Date.parse(event.occurred_at) >= sinceMs);
    today.push(...ofToday);
    // Newest first: an event from before midnight ends today.
    const done = ofToday.length < items.length || next_cursor === null;
    if (done || page === AUDIT_PAGES)
      return found({ since, events: today.length, capped: !done, ...groupByActor(today) });
    cursor = next_cursor;
  }
};

const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'your time zone';

/** Today's events in a sentence, and a table of who made them. */
const Today = ({ day }: { day: Day }) => {
  const count = `${day.capped ? 'at least ' : ''}${day.events} ${day.events === 1 ? 'event' : 'events'}`;
  return (
    <>
      <p>
        Since <TimeText iso={day.since} />, midnight in your time zone ({timeZone()}): {count}
        {day.capped ? `: the newest ${day.events} were read, and the audit trail has more of today's.` : '.'}
      </p>
      {day.actors.length === 0 ? (
        <p>Nobody has changed anything today.</p>
      ) : (
        <DataTable
          label="Today's activity table"
          caption={`Today's events by who made them${day.capped ? `, in the newest ${day.events}` : ''}`}
          columns={['Who', 'Events', ...day.types]}
        >
          {day.actors.map((actor) => (
            <tr key={actor.label}>
              <th scope="row">
                {actor.id === null ? (
                  actor.label
                ) : (
                  <a
                    href={addressHash({ view: 'audit', audit: actorTrail(actor.id, today()) })}
                    aria-label={`${actor.label}: today's events in the audit trail`}
                  >
                    {actor.label}
                  </a>
                )}
              </th>
              <td>{actor.total}</td>
              {day.types.map((type) => (
                <td key={type}>{actor.counts[type] ?? 0}</td>
              ))}
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
};

export const Activity = ({ call, version }: { call: Call; version: number }) => {
  const read = useReadEach(() => readToday(call), version);
  return (
    <PanelRead read={read} what="the audit trail">
      {(day) => <Today day={day} />}
    </PanelRead>
  );
};
