import { DataTable } from './data-table';
import type { GameAnswer } from './device-games-listings';

/** Restricted or not in each game shown: from the listed bans' `enforced`, a row per game. */

/** Why a game is shown. */
export type ShownBecause = 'the Game ID' | 'you banned it here' | 'added';

const yes = (value: boolean) => (value ? 'yes' : 'no');

/** A game's three answer cells: reading, its restrictions, or its failure with Try again. */
const AnswerCells = ({
  game,
  answer,
  onRetry,
}: {
  game: string;
  answer: GameAnswer | undefined;
  onRetry: (game: string) => void;
}) => {
  if (!answer) return <td colSpan={3}>Reading…</td>;
  if (!answer.ok)
    return (
      <td colSpan={3} class="field-error">
        Could not be listed. {answer.message?.text}{' '}
        <button
          type="button"
          class="small secondary"
          aria-label={`Try game ${game} again`}
          onClick={() => onRetry(game)}
        >
          Try again
        </button>
      </td>
    );
  const enforced = answer.bans.filter((b) => b.enforced);
  return (
    <>
      <td>{yes(enforced.some((b) => b.ban_type === 'cheat'))}</td>
      <td>{yes(enforced.some((b) => b.ban_type === 'social'))}</td>
      <td>
        {enforced.length}
        {answer.complete ? '' : ' or more (too many bans to read them all)'}
      </td>
    </>
  );
};

export const RestrictedPerGameTable = ({
  deviceId,
  games,
  answers,
  why,
  onRetry,
  onRemove,
}: {
  deviceId: string;
  games: readonly string[];
  answers: Record<string, GameAnswer>;
  why: (game: string) => ShownBecause;
  onRetry: (game: string) => void;
  /** An added game taken off the view. */
  onRemove: (game: string) => void;
}) => (
  <DataTable
    label="Restricted per game table"
    caption={<>Device {deviceId}: restricted or not in each game, under your policy</>}
    columns={['Game', 'Cheat restricted', 'Social restricted', 'Enforced bans', 'Shown because']}
  >
    {games.map((game) => (
      <tr key={game}>
        <th scope="row">{game}</th>
        <AnswerCells game={game} answer={answers[game]} onRetry={onRetry} />
        <td>
          {why(game)}
          {why(game) === 'added' && (
            <>
              {' '}
              <button
                type="button"
                class="small secondary"
                aria-label={`Remove game ${game}`}
                onClick={() => onRemove(game)}
              >
                Remove
              </button>
            </>
          )}
        </td>
      </tr>
    ))}
  </DataTable>
);
