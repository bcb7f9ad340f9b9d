import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { addressHash } from './address';
import { type AnyAnswer, actorLabel, type Call, formatDuration, type Schemas, type Scope } from './api';
import { auditTypes } from './audit';
import {
  errorMessage,
  type Message,
  Notice,
  ScopeGate,
  type ScopeKnowledge,
  TableScroll,
  TimeText,
  useBusy,
} from './ui';

/**
 * The Start page: what happened today and what needs a moderator now. Each
 * panel is read on its own, with its own scope: one the session may not read says so (as every
 * view does), one that fails says why, and neither hides the others.
 *
 *   - today's activity by person, from the audit trail (`audit:read`): today is the moderator's
 *     own day, since midnight in the browser's time zone;
 *   - the open appeals and how long the oldest has waited (`appeals:decide`);
 *   - the publisher's bans in force that end in the next 24 hours, soonest first (`bans:read`),
 *     a page at a time (Show more);
 *   - the webhooks whose deliveries are failing: being retried, or given up (`keys:manage`).
 */

type AuditEvent = Schemas['AuditEvent'];
type AuditType = AuditEvent['type'];
type Webhook = Schemas['Webhook'];
type Delivery = Schemas['Delivery'];
type ExpiringBanList = Schemas['ExpiringBanList'];
type ExpiringBan = ExpiringBanList['items'][number];

/** The audit trail is read 200 events a page, at most 5 pages: beyond that, "at least". */
const AUDIT_PAGE = 200;
const AUDIT_PAGES = 5;
/** Each webhook's newest failed and newest pending deliveries: one page of each. */
const DELIVERY_PAGE = 50;
/** Bans ending within this many hours, this many a page (Show more reads the next). */
const ENDING_HOURS = 24;
const ENDING_PAGE = 25;

type Read<T> = { ok: true; value: T } | { ok: false; message: Message };
const refused = (answer: AnyAnswer): { ok: false; message: Message } => ({
  ok: false,
  message: errorMessage(answer),
});

/**
 * One panel's read: at mount, and again each time `version` changes (Read again). Only the
 * latest read's answer is kept; a refusal replaces what an earlier read showed.
 */
const usePanelRead = <T,>(read: () => Promise<Read<T>>, version: number) => {
  const [value, setValue] = useState<T | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const latest = useRef(0);
  const { busy, run } = useBusy();
  useEffect(() => {
    const mine = ++latest.current;
    void run(
      async () => {
        const answer = await read();
        if (mine !== latest.current) return;
        setValue(answer.ok ? answer.value : null);
        setMessage(answer.ok ? null : answer.message);
      },
      { supersedes: true },
    );
  }, [version]);
  return { value, message, busy };
};

/** A panel of the page: its heading, then its content, or why the session may not see it. */
const Panel = ({
  id,
  title,
  scope,
  knowledge,
  what,
  link,
  children,
}: {
  id: string;
  title: string;
  scope: Scope;
  knowledge: ScopeKnowledge;
  what: string;
  /** Where the whole story is: the view's address and the link's words. */
  link: { href: string; text: string };
  children: ComponentChildren;
}) => (
  <section aria-labelledby={id} class="panel">
    <h3 id={id}>{title}</h3>
    <ScopeGate scope={scope} known={knowledge} what={what}>
      {children}
      <p>
        <a href={link.href}>{link.text}</a>
      </p>
    </ScopeGate>
  </section>
);

/** While a panel's read is on its way: its first, or again after Read again. */
const Reading = ({ what, again = false }: { what: string; again?: boolean }) => (
  <p class="meta">
    Reading {what}
    {again ? ' again' : ''}…
  </p>
);

// --- Today's activity ---------------------------------------------------------------------------

/** Midnight today in the moderator's own time zone, as an instant. */
const startOfToday = (now = new Date()) =>
  new Date(now.getFullYear(), now.getMonth(), now.getDate()).toISOString();

interface ActorDay {
  label: string;
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
    const group = groups.get(key) ?? { label: actorLabel(event.actor), total: 0, counts: {} };
    group.total += 1;
    group.counts[event.type] = (group.counts[event.type] ?? 0) + 1;
    groups.set(key, group);
  }
  const actors = [...groups.values()].sort((a, b) => b.total - a.total || a.label.localeCompare(b.label));
  const types = auditTypes.filter((type) => actors.some((a) => a.counts[type]));
  return { actors, types };
};

const readToday = async (call: Call): Promise<Read<Day>> => {
  const since = startOfToday();
  const sinceMs = Date.parse(since);
  const today: AuditEvent[] = [];
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const answer = await call('get', '/v1/audit', {
      query: { limit: AUDIT_PAGE, ...(cursor ? { cursor } : {}) },
    });
    if (answer.status !== 200) return refused(answer);
    const { items, next_cursor } = answer.body;
    const ofToday = items.filter((event) => Date.parse(event.occurred_at) >= sinceMs);
    today.push(...ofToday);
    // Newest first: an event from before midnight ends today.
    const done = ofToday.length < items.length || next_cursor === null;
    if (done || page === AUDIT_PAGES)
      return { ok: true, value: { since, events: today.length, capped: !done, ...groupByActor(today) } };
    cursor = next_cursor;
  }
};

const timeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'your time zone';

const Activity = ({ call, version }: { call: Call; version: number }) => {
  const { value: day, message, busy } = usePanelRead(() => readToday(call), version);
  if (!day) return message ? <Notice message={message} /> : <Reading what="the audit trail" />;
  const count = `${day.capped ? 'at least ' : ''}${day.events} ${day.events === 1 ? 'event' : 'events'}`;
  return (
    <>
      {busy && <Reading what="the audit trail" again />}
      <p>
        Since <TimeText iso={day.since} />, midnight in your time zone ({timeZone()}): {count}
        {day.capped ? `: the newest ${day.events} were read, and the audit trail has more of today's.` : '.'}
      </p>
      {day.actors.length === 0 ? (
        <p>Nobody has changed anything today.</p>
      ) : (
        <TableScroll label="Today's activity table">
          <table>
            <caption>
              Today's events by who made them{day.capped ? `, in the newest ${day.events}` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Who</th>
                <th scope="col">Events</th>
                {day.types.map((type) => (
                  <th scope="col" key={type}>
                    {type}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {day.actors.map((actor) => (
                <tr key={actor.label}>
                  <th scope="row">{actor.label}</th>
                  <td>{actor.total}</td>
                  {day.types.map((type) => (
                    <td key={type}>{actor.counts[type] ?? 0}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </>
  );
};

// --- Open appeals --------------------------------------------------------------------------------

const OpenAppeals = ({ call, version }: { call: Call; version: number }) => {
  const {
    value: stats,
    message,
    busy,
  } = usePanelRead(async () => {
    const answer = await call('get', '/v1/appeals/stats', {});
    return answer.status === 200 ? { ok: true, value: answer.body } : refused(answer);
  }, version);
  if (!stats) return message ? <Notice message={message} /> : <Reading what="the appeals queue" />;
  return (
    <>
      {busy && <Reading what="the appeals queue" again />}
      {stats.open === 0 || stats.oldest_open_at === null || stats.oldest_open_age_seconds === null ? (
        <p>No appeal is open.</p>
      ) : (
        <p>
          <strong>
            {stats.open} open {stats.open === 1 ? 'appeal' : 'appeals'}
          </strong>
          ; the oldest has been waiting {formatDuration(stats.oldest_open_age_seconds)}, since{' '}
          <TimeText iso={stats.oldest_open_at} />.
        </p>
      )}
    </>
  );
};

// --- Bans ending soon ---------------------------------------------------------------------------

const readEnding = async (call: Call, cursor?: string): Promise<Read<ExpiringBanList>> => {
  const answer = await call('get', '/v1/bans/expiring', {
    query: { within_hours: ENDING_HOURS, limit: ENDING_PAGE, ...(cursor ? { cursor } : {}) },
  });
  return answer.status === 200 ? { ok: true, value: answer.body } : refused(answer);
};

/** The pages Show more read after a first page: they belong to that page, and go with it. */
interface More {
  after: ExpiringBanList;
  items: ExpiringBan[];
  next_cursor: string | null;
  message: Message;
}

const EndingSoon = ({ call, version }: { call: Call; version: number }) => {
  const { value: first, message, busy } = usePanelRead(() => readEnding(call), version);
  const [more, setMore] = useState<More | null>(null);
  // The first page shown now: a later page read for an earlier one (before Read again) is dropped.
  const shown = useRef(first);
  shown.current = first;
  const { busy: reading, run } = useBusy();
  if (!first) return message ? <Notice message={message} /> : <Reading what="the bans ending soon" />;
  const added = more?.after === first ? more : null;
  const items = added ? [...first.items, ...added.items] : first.items;
  const next = added ? added.next_cursor : first.next_cursor;
  const showMore = (cursor: string) =>
    run(async () => {
      const answer = await readEnding(call, cursor);
      if (shown.current !== first) return;
      setMore(
        answer.ok
          ? {
              after: first,
              items: [...(added?.items ?? []), ...answer.value.items],
              next_cursor: answer.value.next_cursor,
              message: null,
            }
          : { after: first, items: added?.items ?? [], next_cursor: cursor, message: answer.message },
      );
    });
  return (
    <>
      {busy && <Reading what="the bans ending soon" again />}
      {items.length === 0 ? (
        next === null ? (
          <p>No ban of yours ends in the next {ENDING_HOURS} hours.</p>
        ) : (
          // A page can hold none when the bans its entries named were revoked meanwhile.
          <p>None of the bans read so far is still in force; there are more to read.</p>
        )
      ) : (
        <TableScroll label="Bans ending soon table">
          <table>
            <caption>
              Your bans in force that end in the next {ENDING_HOURS} hours, soonest first ({items.length}
              {next === null ? '' : ' read so far'})
            </caption>
            <thead>
              <tr>
                <th scope="col">Device</th>
                <th scope="col">Type</th>
                <th scope="col">Scope</th>
                <th scope="col">Game</th>
                <th scope="col">Reason</th>
                <th scope="col">Ends</th>
                <th scope="col">Made by</th>
              </tr>
            </thead>
            <tbody>
              {items.map((ban) => (
                <tr key={`${ban.device_id} ${ban.ban_id}`}>
                  <th scope="row">
                    <a href={addressHash({ view: 'device', game: ban.game_id, device: ban.device_id })}>
                      {ban.device_id}
                    </a>
                  </th>
                  <td>{ban.ban_type}</td>
                  <td>{ban.scope}</td>
                  <td>{ban.game_id}</td>
                  <td>{ban.reason_code}</td>
                  <td>
                    <TimeText iso={ban.expires_at} />
                  </td>
                  <td>{ban.created_by ? actorLabel(ban.created_by) : 'not recorded'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
      {added?.message && <Notice message={added.message} />}
      {next !== null && (
        <button
          type="button"
          class="secondary"
          disabled={busy || reading}
          onClick={() => void showMore(next)}
        >
          Show more
        </button>
      )}
    </>
  );
};

// --- Failing webhooks ----------------------------------------------------------------------------

interface Failing {
  hook: Webhook;
  /** Pending deliveries already tried and refused, on the first page of pending ones. */
  retrying: number;
  retryingMore: boolean;
  /** Deliveries given up (after a day of retries), on their first page. */
  failed: number;
  failedMore: boolean;
  /** The most recent failed attempt among them. */
  latest: Delivery | null;
}

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
};

const newestAttempt = (deliveries: readonly Delivery[]): Delivery | null =>
  deliveries.reduce<Delivery | null>(
    (newest, d) =>
      newest === null || (d.last_attempt_at ?? '') > (newest.last_attempt_at ?? '') ? d : newest,
    null,
  );

const readFailing = async (call: Call): Promise<Read<{ hooks: number; failing: Failing[] }>> => {
  const listed = await call('get', '/v1/webhooks', {});
  if (listed.status !== 200) return refused(listed);
  const failing: Failing[] = [];
  // One webhook at a time: at most 10, two reads each.
  for (const hook of listed.body.items) {
    const page = (status: 'failed' | 'pending') =>
      call('get', '/v1/webhooks/{webhook_id}/deliveries', {
        path: { webhook_id: hook.webhook_id },
        query: { status, limit: DELIVERY_PAGE },
      });
    const [failed, pending] = await Promise.all([page('failed'), page('pending')]);
    if (failed.status !== 200) return refused(failed);
    if (pending.status !== 200) return refused(pending);
    const retrying = pending.body.items.filter((d) => d.attempts > 0);
    if (failed.body.items.length === 0 && retrying.length === 0) continue;
    failing.push({
      hook,
      retrying: retrying.length,
      retryingMore: pending.body.next_cursor !== null,
      failed: failed.body.items.length,
      failedMore: failed.body.next_cursor !== null,
      latest: newestAttempt([...retrying, ...failed.body.items]),
    });
  }
  return { ok: true, value: { hooks: listed.body.items.length, failing } };
};

/** A count read from one page: "50+" when the page was not the last. */
const atLeast = (count: number, more: boolean) => `${count}${more ? '+' : ''}`;

const FailingWebhooks = ({ call, version }: { call: Call; version: number }) => {
  const { value, message, busy } = usePanelRead(() => readFailing(call), version);
  if (!value) return message ? <Notice message={message} /> : <Reading what="the webhooks' deliveries" />;
  const { hooks, failing } = value;
  return (
    <>
      {busy && <Reading what="the webhooks' deliveries" again />}
      {hooks === 0 ? (
        <p>Your publisher has no webhooks.</p>
      ) : failing.length === 0 ? (
        <p>
          None of your {hooks} {hooks === 1 ? 'webhook is' : 'webhooks is'} failing: no delivery is being
          retried or was given up.
        </p>
      ) : (
        <TableScroll label="Failing webhooks table">
          <table>
            <caption>
              Webhooks with deliveries being retried or given up ({failing.length} of {hooks}; the newest{' '}
              {DELIVERY_PAGE} of each kind read)
            </caption>
            <thead>
              <tr>
                <th scope="col">Webhook</th>
                <th scope="col">Sends to</th>
                <th scope="col">Being retried</th>
                <th scope="col">Given up</th>
                <th scope="col">Latest error</th>
                <th scope="col">Last attempt</th>
              </tr>
            </thead>
            <tbody>
              {failing.map((f) => (
                <tr key={f.hook.webhook_id}>
                  <th scope="row">{f.hook.webhook_id}</th>
                  <td>{originOf(f.hook.url)}</td>
                  <td>{atLeast(f.retrying, f.retryingMore)}</td>
                  <td>{atLeast(f.failed, f.failedMore)}</td>
                  <td>{f.latest?.last_error ?? '—'}</td>
                  <td>{f.latest?.last_attempt_at ? <TimeText iso={f.latest.last_attempt_at} /> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </>
  );
};

// --- The page ------------------------------------------------------------------------------------

export const StartView = ({ call, knowledge }: { call: Call; knowledge: ScopeKnowledge }) => {
  // Bumped by Read again: every panel reads again.
  const [version, setVersion] = useState(0);
  return (
    <section aria-labelledby="start-heading" class="panel">
      <h2 id="start-heading">Start</h2>
      <div class="actions">
        <p class="meta">
          Today's activity, the appeals waiting, the bans ending soon and the webhooks failing, each read on
          its own.
        </p>
        <button type="button" class="secondary" onClick={() => setVersion((v) => v + 1)}>
          Read again
        </button>
      </div>
      <Panel
        id="start-activity-heading"
        title="Today's activity by person"
        scope="audit:read"
        knowledge={knowledge}
        what="Today's activity"
        link={{ href: addressHash({ view: 'audit' }), text: 'Open the audit trail' }}
      >
        <Activity call={call} version={version} />
      </Panel>
      <Panel
        id="start-appeals-heading"
        title="Open appeals"
        scope="appeals:decide"
        knowledge={knowledge}
        what="The appeals queue"
        link={{ href: addressHash({ view: 'appeals' }), text: 'Work the appeals queue' }}
      >
        <OpenAppeals call={call} version={version} />
      </Panel>
      <Panel
        id="start-ending-heading"
        title="Ending in the next 24 hours"
        scope="bans:read"
        knowledge={knowledge}
        what="The list of bans ending soon"
        link={{ href: addressHash({ view: 'device' }), text: 'Look a device up in Devices' }}
      >
        <EndingSoon call={call} version={version} />
      </Panel>
      <Panel
        id="start-webhooks-heading"
        title="Webhooks failing now"
        scope="keys:manage"
        knowledge={knowledge}
        what="Webhook delivery status"
        link={{ href: addressHash({ view: 'webhooks' }), text: 'Open webhooks and their deliveries' }}
      >
        <FailingWebhooks call={call} version={version} />
      </Panel>
    </section>
  );
};
