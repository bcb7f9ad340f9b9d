import { now } from '../clock';
import { settings } from '../config';

/**
 * A short, shared, in-process cache of storage reads (module scope: one per Lambda container, one
 * per local server), for the change feed's hot path: every game server polling `GET /v1/events`
 * each second reads the same few things (the head of `FEED#GLOBAL`, its publisher's partitions,
 * its publisher's policy). A read is kept for `FEED_CACHE_MS` (default 1,000 ms; 0 turns the cache
 * off) from the moment it was asked, and a read asked while the same one is in flight joins it, so
 * a container makes at most one read per key per window, however many polls it answers.
 *
 * Keys must name exactly what was read (the feed: partition, position after, limit): a page read
 * at a position stays a true answer for that position, only possibly a little behind the head, so
 * "each event exactly once from any cursor" holds with any window. What a window costs is
 * freshness: an event shows up to one window later, an erasure's redaction of earlier entries and a
 * policy change's `enforced` reach a reader up to one window later (docs/scale.md).
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
