import { useEffect, useState } from 'preact/hooks';
import type { Ban, Call } from './api';
import type { OpenDevice } from './device';
import { BansInGamesTable } from './device-games-bans';
import { useGameListings } from './device-games-listings';
import { RestrictedPerGameTable, type ShownBecause } from './device-games-restricted';
import { Field, Notice, useFocusOn } from './ui';
import { useRequest } from './use-request';
import { check } from './validation';

/**
 * One device in every game that matters at once. Listings are per game (X-Game-Id: a game ban is
 * seen only in its game), so the games shown are the Game ID's, those where the publisher has
 * banned the device (GET /v1/devices with its exact id) and those the moderator adds; each is
 * listed on its own, in parallel, and its row filled the moment its answer arrives. Restricted
 * comes from the listed bans' `enforced`, exactly as the enforcement answer derives it
 * (lib/domain/enforcement.ts: a type is restricted when a visible ban of it is enforced).
 */

/** Games a moderator may add to one view: each is a request. */
export const MAX_ADDED_GAMES = 20;

interface Props {
  call: Call;
  device: OpenDevice;
  /** The caller's publisher, when known (the policy, the person): whose bans are "yours". */
  publisher: string | null;
  /** The games the moderator added (kept in the address). */
  added: readonly string[];
  onAdded: (games: string[]) => void;
  /** The games the session's key is bound to, when it is. */
  bound: readonly string[] | null | undefined;
  onRevoke?: ((ban: Ban) => void) | undefined;
  /** Bumped after a change to the device (a revoke, a new ban) to read it again. */
  version: number;
  /** Bumped by each lookup: the heading takes focus. */
  lookup: number;
}

const unique = (games: readonly string[]) => [...new Set(games)];

export const DeviceGames = ({
  call,
  device,
  publisher: known,
  added,
  onAdded,
  bound,
  onRevoke,
  version,
  lookup,
}: Props) => {
  const heading = useFocusOn<HTMLHeadingElement>(lookup);
  // The games the index says the publisher banned the device in: null until it answers, none if
  // it refuses. Each reading of the device asks again; an answer about another is dropped.
  const [banned, setBanned] = useState<string[] | null>(null);
  const bannedRequest = useRequest({ latest: true });
  // The add form sends nothing (the games are kept in the address): its value and its error.
  const [adding, setAdding] = useState('');
  const [addError, setAddError] = useState<string | undefined>();

  useEffect(() => {
    setBanned(null);
    void bannedRequest.run(
      () => call('get', '/v1/devices', { query: { prefix: device.deviceId, limit: 1 } }),
      // The prefix is the whole id: only its own entry, never a longer id's.
      (answer) => setBanned(answer.body.items.find((d) => d.device_id === device.deviceId)?.games ?? []),
    );
    // Gone or read again: whatever is still on its way answers an older question.
    return () => bannedRequest.forget();
  }, [device, version]);
  const bannedIn = banned ?? (bannedRequest.message ? [] : null);
  const bannedMessage = bannedRequest.message && {
    ...bannedRequest.message,
    text: `The games where you have banned ${device.deviceId} could not be listed; the Game ID's and those added are shown. ${bannedRequest.message.text}`,
  };

  const games = unique([device.game, ...(bannedIn ?? []), ...added]);
  const { answers, retry } = useGameListings(call, device, version, games);
  const why = (game: string): ShownBecause =>
    game === device.game ? 'the Game ID' : bannedIn?.includes(game) ? 'you banned it here' : 'added';

  const listed = games.flatMap((game) => {
    const answer = answers[game];
    return answer?.ok ? [{ game, bans: answer.bans }] : [];
  });
  // Whose bans are "yours": the session's publisher, else the owner of any game or publisher ban
  // listed (only their owner sees those).
  const publisher =
    known ??
    listed.flatMap(({ bans }) => bans.filter((b) => b.scope !== 'global' || b.created_by)).at(0)
      ?.publisher_id ??
    null;

  // Each ban once, with the games it was listed in, newest first.
  const byId = new Map<number, { ban: Ban; games: string[] }>();
  for (const { game, bans } of listed)
    for (const ban of bans) {
      const seen = byId.get(ban.ban_id);
      if (seen) seen.games.push(game);
      else byId.set(ban.ban_id, { ban, games: [game] });
    }
  const rows = [...byId.values()].sort((a, b) => b.ban.ban_id - a.ban.ban_id);
  const waiting = games.filter((g) => !answers[g]);
  const failed = games.filter((g) => answers[g] && !answers[g]?.ok);

  const add = (e: Event) => {
    e.preventDefault();
    const game = adding.trim();
    const problem =
      check('game_id', game) ??
      (bound && !bound.includes(game)
        ? `is not one this key is bound to (${bound.join(', ')})`
        : undefined) ??
      (games.includes(game) ? 'is already shown' : undefined) ??
      (added.length >= MAX_ADDED_GAMES
        ? `cannot be added: at most ${MAX_ADDED_GAMES} games are added`
        : undefined);
    setAddError(problem && `Game ${problem}`);
    if (problem) return;
    setAdding('');
    onAdded([...added, game]);
  };

  return (
    <section aria-labelledby="device-heading" class="result">
      <h2 id="device-heading" tabIndex={-1} ref={heading}>
        Device {device.deviceId} in all games
      </h2>
      <section aria-labelledby="games-heading" class="panel">
        <h3 id="games-heading">Restricted per game</h3>
        <p>
          The Game ID's game, the games where you have banned this device
          {bannedIn === null ? ' (being found)' : ''}, and the games you add. Each game sees its own game
          bans, your publisher bans and every publisher's global bans.
        </p>
        <Notice message={bannedMessage} keepFocus />
        <RestrictedPerGameTable
          deviceId={device.deviceId}
          games={games}
          answers={answers}
          why={why}
          onRetry={retry}
          onRemove={(game) => {
            onAdded(added.filter((g) => g !== game));
            // The button goes with its row: the focus goes to where games are added.
            document.getElementById('add-game')?.focus();
          }}
        />
        <form class="filters" onSubmit={add} noValidate>
          <Field
            id="add-game"
            label="Add a game"
            value={adding}
            onValue={setAdding}
            error={addError}
            hint="Its Game ID: the device is listed in it too."
          />
          <button type="submit">Add game</button>
        </form>
      </section>
      <section aria-labelledby="all-bans-heading" class="panel">
        <h3 id="all-bans-heading">Bans in these games</h3>
        <p role="status">
          {waiting.length > 0
            ? `Still reading ${waiting.join(', ')}: their bans are not here yet.`
            : failed.length > 0
              ? `The bans of ${failed.join(', ')} are missing: ${failed.length === 1 ? 'it' : 'they'} could not be listed.`
              : `Every game shown answered: ${rows.length} ${rows.length === 1 ? 'ban' : 'bans'}.`}
        </p>
        <BansInGamesTable
          deviceId={device.deviceId}
          rows={rows}
          reading={waiting.length > 0}
          publisher={publisher}
          onRevoke={onRevoke}
        />
      </section>
    </section>
  );
};
