import { useState } from 'preact/hooks';
import { addressHash } from './address';
import { actorLabel, type Call, type Schemas } from './api';
import { DataTable } from './data-table';
import { PanelRead } from './start-panel';
import { Notice, TimeText, useOnChange } from './ui';
import { useReadEach } from './ui-read';
import { useRequest } from './use-request';

/**
 * The publisher's bans in force that end in the next 24 hours, soonest first (`bans:read`), a
 * page at a time (Show more).
 */

type ExpiringBanList = Schemas['ExpiringBanList'];
type ExpiringBan = ExpiringBanList['items'][number];

/** Bans ending within this many hours, this many a page (Show more reads the next). */
const ENDING_HOURS = 24;
const ENDING_PAGE = 25;

const readEnding = (call: Call, cursor?: string) =>
  call('get', '/v1/bans/expiring', {
    query: { within_hours: ENDING_HOURS, limit: ENDING_PAGE, ...(cursor ? { cursor } : {}) },
  });

/** The pages Show more read after a first page: they belong to that page, and go with it. */
interface More {
  after: ExpiringBanList;
  items: ExpiringBan[];
  next_cursor: string | null;
}

const EndingTable = ({ items, next }: { items: readonly ExpiringBan[]; next: string | null }) => (
  <DataTable
    label="Bans ending soon table"
    caption={`Your bans in force that end in the next ${ENDING_HOURS} hours, soonest first (${items.length}${
      next === null ? '' : ' read so far'
    })`}
    columns={['Device', 'Type', 'Scope', 'Game', 'Reason', 'Ends', 'Made by']}
  >
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
  </DataTable>
);

export const EndingSoon = ({ call, version }: { call: Call; version: number }) => {
  const read = useReadEach(() => readEnding(call), version);
  const more = useRequest();
  const [added, setAdded] = useState<More | null>(null);
  // Read again: a later page on its way for the first page shown, or its refusal, goes with it.
  useOnChange(version, more.forget);
  return (
    <PanelRead read={read} what="the bans ending soon">
      {(first) => {
        const shown = added?.after === first ? added : null;
        const items = shown ? [...first.items, ...shown.items] : first.items;
        const next = shown ? shown.next_cursor : first.next_cursor;
        const showMore = (cursor: string) =>
          more.run(
            () => readEnding(call, cursor),
            ({ body }) =>
              setAdded({
                after: first,
                items: [...(shown?.items ?? []), ...body.items],
                next_cursor: body.next_cursor,
              }),
          );
        return (
          <>
            {items.length === 0 ? (
              next === null ? (
                <p>No ban of yours ends in the next {ENDING_HOURS} hours.</p>
              ) : (
                // A page can hold none when the bans its entries named were revoked meanwhile.
                <p>None of the bans read so far is still in force; there are more to read.</p>
              )
            ) : (
              <EndingTable items={items} next={next} />
            )}
            <Notice message={more.message} />
            {next !== null && (
              <button
                type="button"
                class="secondary"
                disabled={read.busy || more.busy}
                onClick={() => void showMore(next)}
              >
                Show more
              </button>
            )}
          </>
        );
      }}
    </PanelRead>
  );
};
