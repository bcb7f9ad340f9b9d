import { now } from '../clock';
import { settings } from '../config';

/**
 * A short, shared, in-process cache of storage reads for the change feed's hot path (module scope:
 * one per Lambda container, one per local server): a read is kept for `FEED_CACHE_MS` from when it
 * was asked, and a read asked while the same one is in flight joins it. Invariant: a key names
 * exactly what was read, so a cached page stays a true answer for its position and "each event
 * exactly once from any cursor" holds with any window; a window costs only freshness. See
 * docs/scale.md#polling-the-change-feed.
 */

export { DEFAULT_FEED_CACHE_MS, MAX_FEED_CACHE_MS } from '../config';

/** `FEED_CACHE_MS` of the bound settings (lib/config.ts): milliseconds a feed read is shared for (0: every poll reads the table). */
export const feedCacheMs = (): number => settings().feedCacheMs;

interface Slot<T> {
  /** When the read was asked: its answer is at least this fresh. */
  readonly at: number;
  readonly value: Promise<T>;
}

export class ShortCache<T> {
  private readonly slots = new Map<string, Slot<T>>();

  constructor(
    /** Slots kept at most: past it, expired slots go, then the oldest. */
    private readonly maxSlots = 2_000,
    private readonly clock: () => number = now,
  ) {}

  /** The value read for `key` less than `windowMs` ago (or being read), else `load()`'s, kept. */
  get(key: string, windowMs: number, load: () => Promise<T>): Promise<T> {
    if (windowMs <= 0) return load();
    const now = this.clock();
    const slot = this.slots.get(key);
    if (slot && now - slot.at < windowMs) return slot.value;
    const value = load();
    this.slots.delete(key);
    this.slots.set(key, { at: now, value });
    // A failed read is not kept: the next poll reads again.
    value.catch(() => {
      if (this.slots.get(key)?.value === value) this.slots.delete(key);
    });
    if (this.slots.size > this.maxSlots) this.trim(now, windowMs);
    return value;
  }

  get size() {
    return this.slots.size;
  }

  clear() {
    this.slots.clear();
  }

  private trim(now: number, windowMs: number) {
    for (const [key, slot] of this.slots) if (now - slot.at >= windowMs) this.slots.delete(key);
    // Insertion order is age order (a slot read again is put back at the end).
    for (const key of this.slots.keys()) {
      if (this.slots.size <= this.maxSlots) break;
      this.slots.delete(key);
    }
  }
}
