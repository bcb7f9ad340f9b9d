import type { Ban } from './api';
import { EvidenceCells, evidenceColumns, isOwnBan } from './ban-evidence';
import { DataTable } from './data-table';
import { banState } from './device';
import { BanKindCells, BanLifeCells, banKindColumns, banLifeColumns, RevokeCell } from './device-ban-cells';

/** Every ban of the device in the games shown, each once with the games it was listed in. */

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
    columns={[...banKindColumns, 'Games', ...banLifeColumns, ...evidenceColumns]}
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
          <EvidenceCells ban={ban} publisher={publisher} />
          {onRevoke && (
            <RevokeCell
              ban={ban}
              revocable={state === 'active' && isOwnBan(ban, publisher)}
              onRevoke={onRevoke}
            />
          )}
        </tr>
      );
    })}
  </DataTable>
);
