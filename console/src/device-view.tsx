import { useState } from 'preact/hooks';
import type { Ban, Call, Policy } from './api';
import { CreateBanForm, ErasePanel, RevokePanel } from './ban-forms';
import { DeviceResult, LookupForm, type LookupRequest, type OpenDevice, readDevice } from './device';
import { DeviceSearch } from './device-search';
import type { Session } from './session';
import { type Message, Notice, refocus, type ScopeKnowledge } from './ui';

/**
 * The Devices view: find a device by the beginning of its id, or look one up in the session's
 * game; then read its enforcement, reputation and bans, revoke one, erase the device; and create
 * bans.
 */

interface Props {
  call: Call;
  session: Session;
  knowledge: ScopeKnowledge;
  policy: Policy | null;
  game: string;
  gameError: string | undefined;
  /** The Game ID changes: a found device opens in one of its games. */
  onGame: (game: string) => void;
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
  onGame,
  device: looked,
  onDevice,
}: Props) => {
  // The device is shown only in the game it was looked up in: with another Game ID, the page and
  // the create form could otherwise disagree about which game a ban goes to.
  const device = looked && looked.game === game ? looked : null;
  const [revoking, setRevoking] = useState<Ban | null>(null);
  const [message, setMessage] = useState<Message>(null);
  const [version, setVersion] = useState(0);
  const [lookup, setLookup] = useState(0);
  const [request, setRequest] = useState<LookupRequest | null>(null);

  const refresh = async (done: Message) => {
    if (!device) return;
    const again = await readDevice(call, device.game, device.deviceId);
    if (again.ok) onDevice(again.device);
    setVersion((v) => v + 1);
    setMessage(again.ok ? done : again.message);
  };

  const writeMissing = knowledge['bans:write'].held === false;
  const bound = session.identity?.games;
  const eraseRefusal = writeMissing
    ? `Erasing needs the scope bans:write, which this session lacks (${knowledge['bans:write'].note}).`
    : bound
      ? `Erasing is refused to a key bound to games (this one is bound to ${bound.join(', ')}): an erasure covers every game.`
      : null;

  return (
    <>
      {knowledge['bans:read'].held === false && (
        <p class="gate">
          Looking up devices needs the scope <code>bans:read</code>, which this session lacks (
          {knowledge['bans:read'].note}).
        </p>
      )}
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
        // A new question: what answered the last one leaves the page at once.
        onAsk={() => {
          setRevoking(null);
          setMessage(null);
          onDevice(null);
        }}
        onOpen={(opened, requested) => {
          setRevoking(null);
          setMessage(null);
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
      {device && (
        <>
          <DeviceResult
            call={call}
            device={device}
            policy={policy}
            version={version}
            lookup={lookup}
            onRevoke={writeMissing ? undefined : setRevoking}
          />
          {writeMissing && (
            <p class="gate">
              Revoking needs the scope <code>bans:write</code>, which this session lacks (
              {knowledge['bans:write'].note}).
            </p>
          )}
          {revoking && (
            <RevokePanel
              call={call}
              game={device.game}
              deviceId={device.deviceId}
              ban={revoking}
              onCancel={() => {
                refocus(`Revoke ban ${revoking.ban_id}`);
                setRevoking(null);
              }}
              onDone={(done) => {
                setRevoking(null);
                void refresh(done);
              }}
            />
          )}
          <Notice message={message} />
          {/* Nothing of the caller's to erase is visible: no Erase for a mistyped id. */}
          {device.allBans?.length !== 0 && (
            <ErasePanel
              call={call}
              deviceId={device.deviceId}
              refusal={eraseRefusal}
              onErased={(done) => {
                setRevoking(null);
                void refresh(done);
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
          gameError={gameError}
          deviceId={device?.deviceId ?? null}
          policy={policy}
          onCreated={(deviceId) => {
            if (device && deviceId === device.deviceId && game === device.game) void refresh(null);
          }}
        />
      )}
    </>
  );
};
