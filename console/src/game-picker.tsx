import { useState } from 'preact/hooks';
import type { Call } from './api';
import { Field, type ScopeKnowledge } from './ui';
import { check } from './validation';

/**
 * The game a view's answers are asked in (X-Game-Id), chosen in the views that use one (Devices,
 * Bulk, the create form), never in a field shown on every page. A game id is any 1-64 characters,
 * so a typo is a valid game with no bans: the API's list of the games the publisher has made bans
 * in (`GET /v1/games`) lets the console flag a game never used before its answer is trusted.
 */

/** What is wrong with a game id for this session (empty, malformed, outside a bound key's games), as a sentence's end. */
export const gameProblem = (game: string, bound: readonly string[] | null | undefined) =>
  game === ''
    ? 'is required: the game the console acts in (X-Game-Id)'
    : (check('game_id', game) ??
      (bound && !bound.includes(game) ? `is not one this key is bound to (${bound.join(', ')})` : undefined));

/** The games the publisher has made bans in: null while unknown (unread, refused, failed), so nothing is flagged. */
export const useGamesUsed = (call: Call, knowledge: ScopeKnowledge) => {
  const [games, setGames] = useState<string[] | null>(null);
  return {
    games,
    /** Read again (a view that uses a game opens): another moderator may have used a new one. */
    load: () => {
      // Only once the scope is known to be held: a session still learning its scopes learns them
      // from what the moderator asks, not from this read's refusal.
      if (knowledge['bans:read'].held !== true) return;
      void call('get', '/v1/games', {}).then((answer) => {
        if (answer.ok) setGames(answer.body.games);
      });
    },
    /** A ban this console just made: its game is used, before the API's list says so. */
    note: (game: string) =>
      setGames((known) => (known && !known.includes(game) ? [...known, game].sort() : known)),
  };
};

export type GamesUsed = ReturnType<typeof useGamesUsed>;

/** The warning for a game no ban of the publisher was made in; null when it was, or while unknown. */
export const unusedGameWarning = (used: readonly string[] | null, game: string) =>
  used === null || game === '' || check('game_id', game) !== undefined || used.includes(game)
    ? null
    : `No ban of yours was ever made in game ${game}: check the Game ID.`;

/** A game field with its hint, its error and, for a game never used, the warning beside it. */
export const GamePicker = ({
  id,
  label,
  game,
  onGame,
  hint,
  error,
  used,
}: {
  id: string;
  label: string;
  game: string;
  onGame: (game: string) => void;
  hint: string;
  error: string | undefined;
  used: readonly string[] | null;
}) => {
  const warning = error ? null : unusedGameWarning(used, game);
  return (
    <>
      <Field
        id={id}
        label={label}
        value={game}
        onValue={(value) => onGame(value.trim())}
        hint={hint}
        error={error}
      />
      {warning && (
        <p class="gate" id={`${id}-unused`}>
          {warning}
        </p>
      )}
    </>
  );
};
