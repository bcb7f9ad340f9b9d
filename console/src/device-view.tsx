import { useEffect, useRef, useState } from 'preact/hooks';
import { readAddress, showAddress } from './address';
import type { Ban, Call, Policy } from './api';
import { CreateBanForm } from './ban-create';
import { ErasePanel, RevokePanel } from './ban-forms';
import { deviceAnswer, type OpenDevice } from './device';
import { DeviceGames, MAX_ADDED_GAMES } from './device-games';
import { LookupForm, type LookupRequest } from './device-lookup';
import { DeviceResult } from './device-result';
import { DeviceSearch } from './device-search';
import { GamePicker, type GamesUsed, unusedGameWarning } from './game-picker';
import type { Session } from './session';
import { type Message, Notice, refocus, type ScopeKnowledge } from './ui';
import { useRequest } from './use-request';
import { check } from './validation';

/**
 * The Devices view: find a device by the beginning of its id, or look one up in the session's
 * game; then read its enforcement, reputation and bans (or, in all games, what restricts it in
 * each and every ban once), revoke one, erase the device; and create bans.
 */

/** The games a link may add: the Game ID's rule, no repeats; anything else in it is dropped. */
const linkGames = (games: string[] | undefined) =>
  games && [...new Set(games.filter((g) => check('game_id', g) === undefined))].slice(0, MAX_ADDED_GAMES);

interface Props {
  call: Call;
  session: Session;
  knowledge: ScopeKnowledge;
  policy: Policy | null;
  game: string;
  gameError: string | undefined;
  gameHint: string;
  /** The Game ID changes: typed, or a found device opens in one of its games. */
  onGame: (game: string) => void;
  used: GamesUsed;
  device: OpenDevice | null;
  onDevice: (device: OpenDevice | null) => void;
}

export const DeviceView = ({
  call,
  session,
  knowledge,
  policy,
  game,
  gameError,
  gameHint,
  onGame,
  used,
  device: looked,
  onDevice,
}: Props) => {
  // The device is shown only in the game it was looked up in: with another Game ID, the page and
  // the create form could otherwise disagree about which game a ban goes to.
  const device = looked && looked.game === game ? looked : null;
  const [revoking, setRevoking] = useState<Ban | null>(null);
  // After a change (a revoke, an erasure, a new ban of it): the device read again, then what was done.
  const reading = useRequest({ latest: true });
  const [version, setVersion] = useState(0);
  const [lookup, setLookup] = useState(0);
  const [request, setRequest] = useState<LookupRequest | null>(null);
  // All games (with the games added), or null for the Game ID's only: from the address, so a link
  // or a reload shows the same.
  const [allGames, setAllGames] = useState<string[] | null>(() => linkGames(readAddress().games) ?? null);
  useEffect(() => {
    if (device)
      showAddress(
        { view: 'device', game: device.game, device: device.deviceId, games: allGames ?? undefined },
        { replace: true },
      );
  }, [device, allGames]);
  useEffect(() => {
    const follow = () => {
      const at = readAddress();
      if (at.view === 'device') setAllGames(linkGames(at.games) ?? null);
    };
    addEventListener('popstate', follow);
    return () => removeEventListener('popstate', follow);
  }, []);
  // A device opened in a game not known to be used: the list is read again before the verdict is
  // flagged (a colleague may have just banned in it).
  useEffect(() => {
    if (device && used.games && !used.games.includes(device.game)) used.load();
  }, [device?.game, device?.deviceId]);
  // The games added, kept while one game is shown, for when all games are shown again.
  const kept = useRef<string[]>([]);
  const choose = (all: boolean) => {
    setRevoking(null);
    if (!all && allGames) kept.current = allGames;
    setAllGames(all ? (allGames ?? kept.current) : null);
  };

  /**
   * A ban made on the open device: read again in its game. In another game the device is read
   * there and opens in it (the Game ID follows, Back returns to the game before): the moderator
   * sees the ban they just made, in the game they made it in, rather than a page that hides it.
   */
  const followBan = (deviceId: string, inGame: string) => {
    used.note(inGame);
    if (!device || deviceId !== device.deviceId) return;
    if (inGame === device.game) {
      refresh(null);
      return;
    }
    void reading.run(
      () => deviceAnswer(call, inGame, deviceId),
      (answer) => {
        setRevoking(null);
        setLookup((n) => n + 1);
        onGame(inGame);
        onDevice(answer.body);
      },
    );
  };

  const refresh = (done: Message) => {
    if (!device) return;
    const { game: inGame, deviceId } = device;
    void reading.run(
      async () => {
        const answer = await deviceAnswer(call, inGame, deviceId);
        // Unread, the device stays as it was shown; its bans are listed again all the same.
        if (!answer.ok) setVersion((v) => v + 1);
        return answer;
      },
      (answer) => {
        onDevice(answer.body);
        setVersion((v) => v + 1);
        reading.setMessage(done);
      },
    );
  };

  const writeMissing = knowledge['bans:write'].held === false;
  const bound = session.identity?.games;
  const eraseRefusal = writeMissing
    ? `Erasing needs the scope bans:write, which this session lacks (${knowledge['bans:write'].note}).`
    : bound
      ? `Erasing is refused to a key bound to games (this one is bound to ${bound.join(', ')}): an erasure covers every game.`
      : null;

  // What both views of the open device are given: one game, or all games.
  const shown = device && {
    call,
    device,
    version,
    lookup,
    onRevoke: writeMissing ? undefined : setRevoking,
  };

  return (
    <>
      {knowledge['bans:read'].held === false && (
        <p class="gate">
          Looking up devices needs the scope <code>bans:read</code>, which this session lacks (
          {knowledge['bans:read'].note}).
        </p>
      )}
      <div class="panel game">
        <GamePicker
          id="game-id"
          label="Game ID"
          game={game}
          onGame={onGame}
          hint={gameHint}
          error={game !== '' && gameError ? `Game ID ${gameError}` : undefined}
          used={used.games}
        />
      </div>
      <DeviceSearch
        call={call}
        knowledge={knowledge}
        game={game}
        bound={bound}
        onOpen={(deviceId, inGame) => setRequest({ deviceId, game: inGame })}
      />
      <LookupForm
        call={call}
        game={game}
        gameError={gameError}
        request={request}
        shown={looked?.deviceId}
        // A new question: what answered the last one leaves the page at once.
        onAsk={() => {
          setRevoking(null);
          reading.forget();
          onDevice(null);
        }}
        onOpen={(opened, requested) => {
          setRevoking(null);
          reading.forget();
          setLookup((n) => n + 1);
          // A found device opens in its game: the Game ID becomes it as the device opens (so the
          // address of the device shown before stays in the history, for Back).
          if (requested && opened.game !== game) onGame(opened.game);
          onDevice(opened);
        }}
      />
      {looked && !device && (
        <p class="panel gate" role="status">
          Device {looked.deviceId} was looked up in game {looked.game}; the Game ID is now {game || 'empty'}.
          Look it up again to see it in this game.
        </p>
      )}
      {device && shown && (
        <>
          <fieldset class="panel">
            <legend>Show device {device.deviceId}</legend>
            <div class="check">
              <input
                type="radio"
                id="show-one-game"
                name="show-games"
                checked={allGames === null}
                onChange={() => choose(false)}
              />
              <label for="show-one-game">In game {device.game}</label>
            </div>
            <div class="check">
              <input
                type="radio"
                id="show-all-games"
                name="show-games"
                checked={allGames !== null}
                onChange={() => choose(true)}
              />
              <label for="show-all-games">In all games: restricted per game, and every ban once</label>
            </div>
          </fieldset>
          {unusedGameWarning(used.games, device.game) && (
            <p class="panel gate" id="device-game-unused">
              {unusedGameWarning(used.games, device.game)}
            </p>
          )}
          {allGames === null ? (
            <DeviceResult {...shown} policy={policy} />
          ) : (
            <DeviceGames
              {...shown}
              publisher={policy?.publisher_id ?? session.person?.who.publisher_id ?? null}
              added={allGames}
              onAdded={setAllGames}
              bound={bound}
            />
          )}
          {writeMissing && (
            <p class="gate">
              Revoking needs the scope <code>bans:write</code>, which this session lacks (
              {knowledge['bans:write'].note}).
            </p>
          )}
          {revoking && (
            <RevokePanel
              call={call}
              // A game ban is revoked through its own game (as listings show it); any other
              // through the Game ID's.
              game={revoking.scope === 'game' && revoking.game_id ? revoking.game_id : device.game}
              deviceId={device.deviceId}
              ban={revoking}
              onCancel={() => {
                refocus(`Revoke ban ${revoking.ban_id}`);
                setRevoking(null);
              }}
              onDone={(done) => {
                setRevoking(null);
                refresh(done);
              }}
            />
          )}
          <Notice message={reading.message} />
          {/* Nothing of the caller's to erase is visible: no Erase for a mistyped id. */}
          {device.allBans?.length !== 0 && (
            <ErasePanel
              call={call}
              deviceId={device.deviceId}
              refusal={eraseRefusal}
              onErased={(done) => {
                setRevoking(null);
                refresh(done);
              }}
            />
          )}
        </>
      )}
      {writeMissing ? (
        <section aria-labelledby="create-heading" class="panel">
          <h2 id="create-heading">Create a ban</h2>
          <p class="gate">
            Creating bans needs the scope <code>bans:write</code>, which this session lacks (
            {knowledge['bans:write'].note}).
          </p>
        </section>
      ) : (
        <CreateBanForm
          call={call}
          game={game}
          bound={bound}
          used={used.games}
          deviceId={device?.deviceId ?? null}
          policy={policy}
          onCreated={followBan}
        />
      )}
    </>
  );
};
