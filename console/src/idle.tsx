import { DEFAULT_IDLE_MINUTES } from '@kernel/sign-in';
import { useEffect, useRef, useState } from 'preact/hooks';

/**
 * An idle console signs out: after `minutes` without input (a key, a click or tap, the pointer
 * moving, a wheel), with a warning a minute before that any input dismisses. The time is the
 * deployment's (sign-in.json's `idle_minutes`, DEFAULT_IDLE_MINUTES without one). Timers, not a
 * poll: a page whose clock a test moves signs out as a real one would.
 */

const INPUTS = ['keydown', 'pointerdown', 'pointermove', 'wheel', 'touchstart'] as const;
const WARNING_MS = 60_000;
/** Input re-arms the timers at most this often (pointer moves come by the dozen). */
const REARM_MS = 1_000;

export const useIdleSignOut = (minutes: number | undefined, onIdle: (minutes: number) => void) => {
  const idleMinutes = minutes ?? DEFAULT_IDLE_MINUTES;
  const [warning, setWarning] = useState(false);
  const onIdleRef = useRef(onIdle);
  onIdleRef.current = onIdle;
  useEffect(() => {
    const idleMs = idleMinutes * 60_000;
    let warn: ReturnType<typeof setTimeout>;
    let end: ReturnType<typeof setTimeout>;
    let armed = 0;
    const arm = () => {
      armed = Date.now();
      clearTimeout(warn);
      clearTimeout(end);
      setWarning(false);
      warn = setTimeout(() => setWarning(true), Math.max(0, idleMs - WARNING_MS));
      end = setTimeout(() => onIdleRef.current(idleMinutes), idleMs);
    };
    const input = () => {
      if (Date.now() - armed >= REARM_MS) arm();
    };
    arm();
    for (const name of INPUTS) window.addEventListener(name, input, { passive: true, capture: true });
    return () => {
      clearTimeout(warn);
      clearTimeout(end);
      for (const name of INPUTS) window.removeEventListener(name, input, { capture: true });
    };
  }, [idleMinutes]);
  return warning;
};

/** The warning, announced; any input (this button too) keeps the session. */
export const IdleWarning = () => (
  <div class="notice error" role="alert">
    <p>
      You will be signed out in a minute: nothing was done here for a while.{' '}
      <button type="button" class="small">
        Stay signed in
      </button>
    </p>
  </div>
);
