/**
 * The service's clock: every "now" of the domain, the authorizer, the local rate limiter and the
 * time-to-live sweeper is read here, so a test sets time instead of waiting on the wall clock.
 * By default the wall clock (read through `Date.now()` at each call, so fake timers still apply);
 * `setClockOffset` moves it by an offset (the local events thread is passed the same offset), and
 * `setClock` replaces it. The clock lives on a global symbol, so that the bundled handlers the local
 * server loads (each with its own copy of this module) read the same one.
 */

const CLOCK = Symbol.for('device-ban-service.clock');
const slot = globalThis as { [CLOCK]?: () => number };

/** Milliseconds since the epoch, now. */
export const now = (): number => {
  const clock = slot[CLOCK];
  return clock ? clock() : Date.now();
};

/** Now, as a Date. */
export const nowDate = (): Date => new Date(now());

/** Replaces the clock (undefined: the wall clock again). */
export const setClock = (clock: (() => number) | undefined) => {
  slot[CLOCK] = clock;
};

/** The wall clock moved by `offsetMs` (0: the wall clock itself). */
export const setClockOffset = (offsetMs: number) => {
  setClock(offsetMs === 0 ? undefined : () => Date.now() + offsetMs);
};
