import { useEffect, useState } from 'preact/hooks';
import { readAddress, showAddress, type View } from './address';
import type { Call } from './api';
import { type OpenDevice, readDevice } from './device';
import type { Session } from './session';

/**
 * Where the console is: the view, the game, the device open in Devices and the appeal open in
 * Appeals, kept in the address (address.ts) so Back, Forward, a reload and a link all work. Leaving
 * the policy with flags ticked but unsaved asks first (`leavingFor`), in the page and on unload.
 */
export const useNavigation = (call: Call, session: Session) => {
  // Where the address points when the console opens (a link, a reload, Back).
  const [start] = useState(readAddress);
  const [view, setView] = useState<View>(start.view);
  const bound = session.identity?.games;
  const [game, setGame] = useState(start.game ?? (bound?.length === 1 ? (bound[0] ?? '') : ''));
  const [device, setDevice] = useState<OpenDevice | null>(null);
  // The appeal open in Appeals: from the address (a link from a device's ban), or chosen there.
  const [appeal, setAppeal] = useState(start.appeal);
  // Focus goes to the view's heading when the moderator changes views (not at sign-in).
  const [navigations, setNavigations] = useState(0);
  // Ticked but unsaved policy flags are not dropped by leaving the view without asking.
  const [policyDirty, setPolicyDirty] = useState(false);
  const [leavingFor, setLeavingFor] = useState<View | null>(null);
  const enter = (target: View) => {
    setLeavingFor(null);
    setView(target);
    setNavigations((n) => n + 1);
  };
  const go = (target: View) => {
    if (view === 'policy' && target !== 'policy' && policyDirty) {
      setLeavingFor(target);
      return;
    }
    enter(target);
    // The section's own entry: Appeals opens on its queue.
    setAppeal(undefined);
    showAddress({ view: target, game, device: device?.deviceId });
  };
  /** Leaves the policy for the view asked for, its unsaved flags dropped. */
  const discard = (target: View) => {
    setPolicyDirty(false);
    enter(target);
    showAddress({ view: target, game, device: device?.deviceId });
  };
  /** An appeal opened (or closed) in Appeals: Back returns to the one before. */
  const openAppeal = (id: string | undefined) => {
    setAppeal(id);
    showAddress({ view: 'appeals', appeal: id });
  };
  /** A device opened (or read again): the address names it, so Back returns to the one before. */
  const openDevice = (opened: OpenDevice | null) => {
    setDevice(opened);
    if (opened) showAddress({ view: 'device', game: opened.game, device: opened.deviceId });
  };
  const lookUpAt = (at: { game?: string | undefined; device?: string | undefined }) => {
    if (!at.game || !at.device) return;
    void readDevice(call, at.game, at.device).then((read) => read.ok && setDevice(read.device));
  };
  /** The open device read again: its `enforced` values follow a policy just saved. */
  const readDeviceAgain = () => {
    if (device) lookUpAt({ game: device.game, device: device.deviceId });
  };
  // The address the console opened at: its device is looked up; then it follows what is shown.
  useEffect(() => {
    if (start.view === 'device') lookUpAt(start);
    showAddress({ view, game, device: start.device, appeal: start.appeal }, { replace: true });
  }, []);
  // The Game ID typed refines the current entry rather than adding one per keystroke.
  useEffect(() => {
    // Until the device the address names is read, the address keeps naming it (for its game).
    const at = readAddress();
    const named = device
      ? device.game === game
        ? device.deviceId
        : undefined
      : at.game === game
        ? at.device
        : undefined;
    showAddress({ view, game, device: named, appeal: at.appeal }, { replace: true });
  }, [game]);
  // Back, Forward and links in the page: the view, game, device and appeal the address names.
  useEffect(() => {
    const follow = () => {
      const at = readAddress();
      if (view === 'policy' && at.view !== 'policy' && policyDirty) {
        setLeavingFor(at.view);
        history.pushState(null, '', '#/policy');
        return;
      }
      enter(at.view);
      if (at.game !== undefined) setGame(at.game);
      setAppeal(at.appeal);
      if (at.view !== 'device') return;
      if (!at.device) setDevice(null);
      else if (device?.deviceId !== at.device || device.game !== at.game) lookUpAt(at);
    };
    addEventListener('popstate', follow);
    return () => removeEventListener('popstate', follow);
  });
  useEffect(() => {
    if (!policyDirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    addEventListener('beforeunload', warn);
    return () => removeEventListener('beforeunload', warn);
  }, [policyDirty]);
  return {
    view,
    game,
    setGame,
    bound,
    device,
    appeal,
    navigations,
    leavingFor,
    /** Stays in the policy (the confirmation's Cancel). */
    stay: () => setLeavingFor(null),
    discard,
    go,
    openAppeal,
    openDevice,
    readDeviceAgain,
    setPolicyDirty,
  };
};
