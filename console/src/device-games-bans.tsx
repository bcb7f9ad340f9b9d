import { actorLabel, type Ban } from './api';
import { DataTable } from './data-table';
import { banState } from './device';
import { BanKindCells, BanLifeCells, banKindColumns, banLifeColumns, RevokeCell } from './device-ban-cells';

/** Every ban of the device in the games shown, each once with the games it was listed in. */

/** Whether the ban is the caller's: game and publisher bans are listed to their owner only. */
const isOwn = (ban: Ban, publisher: string | null) =>
  ban.created_by !== null || ban.scope !== 'global' || ban.publisher_id === publisher;

const madeBy = (ban: Ban, publisher: string | null) => {
  if (ban.created_by) return actorLabel(ban.created_by);
  if (isOwn(ban, publisher)) return 'not recorded';
  return publisher === null
    ? `not recorded (publisher ${ban.publisher_id})`
    : `another publisher (${ban.publisher_id})`;
};

export const BansInGamesTable = ({
  deviceId,
  rows,
  reading,
  publisher,
  onRevoke,
}: {
  deviceId: string;
  rows: ReadonlyArray<{ ban: Ban; games: string[] }>;
  /** Some game has not answered yet. */
  reading: boolean;
  /** Whose bans are "yours". */
  publisher: string | null;
  onRevoke?: ((ban: Ban) => void) | undefined;
}) => (
  <DataTable
    label="Bans in all games table"
    caption={
      <>
        Bans of {deviceId} in the games shown, each once: {rows.length} listed
      </>
    }
    columns={[...banKindColumns, 'Games', ...banLifeColumns, 'Made by']}
    actions={onRevoke !== undefined}
    count={rows.length}
    empty={reading ? 'Reading…' : 'No bans in these games.'}
  >
    {rows.map(({ ban, games: seenIn }) => {
      const state = banState(ban);
      return (
        <tr key={ban.ban_id}>
          <BanKindCells ban={ban} />
          <td>{ban.scope === 'game' ? ban.game_id : `every game (listed in ${seenIn.join(', ')})`}</td>
          <BanLifeCells ban={ban} state={state} />
          <td>{madeBy(ban, publisher)}</td>
          {onRevoke && (
            <RevokeCell
              ban={ban}
              revocable={state === 'active' && isOwn(ban, publisher)}
              onRevoke={onRevoke}
            />
          )}
        </tr>
      );
    })}
  </DataTable>
);
