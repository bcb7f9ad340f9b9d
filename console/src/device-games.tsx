import { useEffect, useRef, useState } from 'preact/hooks';
import { actorLabel, type Ban, type Call } from './api';
import { banState, loadAllBans, type OpenDevice } from './device';
import {
  errorMessage,
  Field,
  type Message,
  Notice,
  StateBadge,
  TableScroll,
  TimeText,
  useFocusOn,
} from './ui';
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

type GameAnswer = { ok: true; bans: Ban[]; complete: boolean } | { ok: false; message: Message };

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
  // The games the index says the publisher banned the device in: null until it answers.
  const [banned, setBanned] = useState<string[] | null>(null);
  const [bannedMessage, setBannedMessage] = useState<Message>(null);
  const [answers, setAnswers] = useState<Record<string, GameAnswer>>({});
  const [adding, setAdding] = useState('');
  const [addError, setAddError] = useState<string | undefined>();
  // Which reading of the device the answers belong to, and the games already asked in it: an
  // answer about the previous device (or before a change) never lands under this one.
  const round = useRef({ n: 0, asked: new Set<string>() });

  useEffect(() => {
    const n = round.current.n + 1;
    round.current = { n, asked: new Set() };
    setAnswers({});
    setBanned(null);
    setBannedMessage(null);
    void call('get', '/v1/devices', { query: { prefix: device.deviceId, limit: 1 } }).then((answer) => {
      if (n !== round.current.n) return;
      if (answer.status !== 200) {
        const failed = errorMessage(answer);
        setBannedMessage(
          failed && {
            ...failed,
            text: `The games where you have banned ${device.deviceId} could not be listed; the Game ID's and those added are shown. ${failed.text}`,
          },
        );
        setBanned([]);
        return;
      }
      // The prefix is the whole id: only its own entry, never a longer id's.
      setBanned(answer.body.items.find((d) => d.device_id === device.deviceId)?.games ?? []);
    });
    // Gone or read again: whatever is still on its way answers an older question.
    return () => {
      round.current = { n: round.current.n + 1, asked: new Set() };
    };
  }, [device, version]);

  const games = unique([device.game, ...(banned ?? []), ...added]);

  /** A game's listing (every page); its row shows the answer the moment it arrives. */
  const ask = (game: string) => {
    const { n, asked } = round.current;
    asked.add(game);
    void loadAllBans(call, game, device.deviceId).then(({ bans, answer }) => {
      if (n !== round.current.n) return;
      const result: GameAnswer = bans
        ? { ok: true, bans, complete: answer !== null }
        : { ok: false, message: answer && errorMessage(answer) };
      setAnswers((now) => ({ ...now, [game]: result }));
    });
  };
  // Each game not yet asked in this reading, in parallel with the others.
  useEffect(() => {
    for (const game of games) if (!round.current.asked.has(game)) ask(game);
  }, [device, version, games.join(',')]);
  const retry = (game: string) => {
    setAnswers(({ [game]: _failed, ...others }) => others);
    ask(game);
  };

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

  const cols = onRevoke ? 11 : 10;
  return (
    <section aria-labelledby="device-heading" class="result">
      <h2 id="device-heading" tabIndex={-1} ref={heading}>
        Device {device.deviceId} in all games
      </h2>
      <section aria-labelledby="games-heading" class="panel">
        <h3 id="games-heading">Restricted per game</h3>
        <p>
          The Game ID's game, the games where you have banned this device
          {banned === null ? ' (being found)' : ''}, and the games you add. Each game sees its own game bans,
          your publisher bans and every publisher's global bans.
        </p>
        <Notice message={bannedMessage} keepFocus />
        <TableScroll label="Restricted per game table">
          <table>
            <caption>Device {device.deviceId}: restricted or not in each game, under your policy</caption>
            <thead>
              <tr>
                <th scope="col">Game</th>
                <th scope="col">Cheat restricted</th>
                <th scope="col">Social restricted</th>
                <th scope="col">Enforced bans</th>
                <th scope="col">Shown because</th>
              </tr>
            </thead>
            <tbody>
              {games.map((game) => {
                const answer = answers[game];
                const why =
                  game === device.game
                    ? 'the Game ID'
                    : banned?.includes(game)
                      ? 'you banned it here'
                      : 'added';
                const enforced = answer?.ok ? answer.bans.filter((b) => b.enforced) : [];
                return (
                  <tr key={game}>
                    <th scope="row">{game}</th>
                    {!answer ? (
                      <td colSpan={3}>Reading…</td>
                    ) : answer.ok ? (
                      <>
                        <td>{enforced.some((b) => b.ban_type === 'cheat') ? 'yes' : 'no'}</td>
                        <td>{enforced.some((b) => b.ban_type === 'social') ? 'yes' : 'no'}</td>
                        <td>
                          {enforced.length}
                          {answer.complete ? '' : ' or more (too many bans to read them all)'}
                        </td>
                      </>
                    ) : (
                      <td colSpan={3} class="field-error">
                        Could not be listed. {answer.message?.text}{' '}
                        <button
                          type="button"
                          class="small secondary"
                          aria-label={`Try game ${game} again`}
                          onClick={() => retry(game)}
                        >
                          Try again
                        </button>
                      </td>
                    )}
                    <td>
                      {why}
                      {why === 'added' && (
                        <>
                          {' '}
                          <button
                            type="button"
                            class="small secondary"
                            aria-label={`Remove game ${game}`}
                            onClick={() => {
                              onAdded(added.filter((g) => g !== game));
                              // The button goes with its row: the focus goes to where games are added.
                              document.getElementById('add-game')?.focus();
                            }}
                          >
                            Remove
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
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
        <TableScroll label="Bans in all games table">
          <table>
            <caption>
              Bans of {device.deviceId} in the games shown, each once: {rows.length} listed
            </caption>
            <thead>
              <tr>
                <th scope="col">Ban</th>
                <th scope="col">Type</th>
                <th scope="col">Scope</th>
                <th scope="col">Games</th>
                <th scope="col">Reason</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                <th scope="col">Enforced</th>
                <th scope="col">Made by</th>
                {onRevoke && (
                  <th scope="col" class="sticky-end">
                    Actions
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {rows.length === 0 && (
                <tr>
                  <td colSpan={cols}>{waiting.length > 0 ? 'Reading…' : 'No bans in these games.'}</td>
                </tr>
              )}
              {rows.map(({ ban, games: seenIn }) => {
                const state = banState(ban);
                return (
                  <tr key={ban.ban_id}>
                    <th scope="row">{ban.ban_id}</th>
                    <td>{ban.ban_type}</td>
                    <td>{ban.scope}</td>
                    <td>
                      {ban.scope === 'game' ? ban.game_id : `every game (listed in ${seenIn.join(', ')})`}
                    </td>
                    <td>{ban.reason_code}</td>
                    <td>
                      <TimeText iso={ban.created_at} />
                    </td>
                    <td>
                      {ban.expires_at === null ? (
                        'never'
                      ) : (
                        <TimeText iso={ban.expires_at} prefix={state === 'expired' ? 'ended ' : 'until '} />
                      )}
                    </td>
                    <td>
                      <StateBadge state={state} />
                      {ban.revoke_reason_code ? ` (${ban.revoke_reason_code})` : ''}
                    </td>
                    <td>{ban.enforced ? 'yes' : 'no'}</td>
                    <td>{madeBy(ban, publisher)}</td>
                    {onRevoke && (
                      <td class="sticky-end">
                        {state === 'active' && isOwn(ban, publisher) ? (
                          <button
                            type="button"
                            class="small"
                            aria-label={`Revoke ban ${ban.ban_id}`}
                            onClick={() => onRevoke(ban)}
                          >
                            Revoke
                          </button>
                        ) : null}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      </section>
    </section>
  );
};
