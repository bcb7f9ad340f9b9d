/**
 * Paging as async iterators. A listing reads page after page until `next_cursor` is null; the
 * change feed reads until a page has no items (caught up) and can be read again from where it
 * stopped. Each page is one call of the client, with its retries.
 *
 * Iterate the items (`for await (const ban of client.bans(...))`) or the whole pages
 * (`for await (const page of it.pages())`, with `counts` and `next_cursor`). `cursor` is where the
 * next read starts: it moves past a page once the loop asks for what comes after it, so a loop
 * that stops (break, throw, crash) in the middle of a page reads that page again when resumed from
 * `cursor`: at least once, never a gap.
 */

/** A page of a listing: its items and the cursor of the next page (null on the last). */
export interface ListPage<Item> {
  items: Item[];
  next_cursor: unknown;
}

/** The type of a listing's cursors (an opaque string, or a number for the ban listings). */
export type CursorOf<Page> = Page extends { next_cursor: infer C } ? NonNullable<C> : never;

/** Reads one page: the call of the listing's route with this cursor (absent for the first page). */
export type PageReader<Page> = (cursor: CursorOf<Page> | undefined) => Promise<Page>;

/** A listing, page by page or item by item. Read it once; `cursor` says where it stopped. */
export class Paged<Item, Page extends ListPage<Item> = ListPage<Item>> implements AsyncIterable<Item> {
  #cursor: CursorOf<Page> | null | undefined;
  readonly #read: PageReader<Page>;

  constructor(read: PageReader<Page>, cursor?: CursorOf<Page>) {
    this.#read = read;
    this.#cursor = cursor;
  }

  /** The next page's cursor: undefined before the first page, null once the last page was read. */
  get cursor(): CursorOf<Page> | null | undefined {
    return this.#cursor;
  }

  async *pages(): AsyncGenerator<Page, void, undefined> {
    while (this.#cursor !== null) {
      const page = await this.#read(this.#cursor);
      yield page;
      this.#cursor = (page.next_cursor ?? null) as CursorOf<Page> | null;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }
}

/** A page of the change feed: `next_cursor` is always there (an empty page keeps the one it was read from). */
export interface FeedPageLike<Item> {
  items: Item[];
  next_cursor: string;
}

/**
 * The change feed of one publisher and game, from a cursor. One pass (`for await` over it, or over
 * `pages()`) reads every page until one comes back empty, then ends: caught up. The next pass
 * starts from `cursor`, so a poller keeps one feed and passes over it on a timer, storing `cursor`
 * with what it did:
 *
 *   const feed = client.events('game-1', { cursor: saved });
 *   for (;;) {
 *     for await (const event of feed) apply(event);
 *     save(feed.cursor);               // everything before it is applied
 *     await sleep(1000);
 *   }
 */
export class EventFeed<Item, Page extends FeedPageLike<Item> = FeedPageLike<Item>>
  implements AsyncIterable<Item>
{
  #cursor: string | undefined;
  #caughtUpAt: number | null = null;
  readonly #read: (cursor: string | undefined) => Promise<Page>;

  constructor(read: (cursor: string | undefined) => Promise<Page>, cursor?: string) {
    this.#read = read;
    this.#cursor = cursor;
  }

  /** Where the next pass starts: undefined until a page was read (without a starting cursor: the first event). */
  get cursor(): string | undefined {
    return this.#cursor;
  }

  /** When (Date.now()) a pass last came to an empty page: the feed was caught up then. Null before that. */
  get caughtUpAt(): number | null {
    return this.#caughtUpAt;
  }

  /** One pass, page by page: ends after the first empty page (which it does not yield). */
  async *pages(): AsyncGenerator<Page, void, undefined> {
    for (;;) {
      const page = await this.#read(this.#cursor);
      if (page.items.length === 0) {
        this.#cursor = page.next_cursor;
        this.#caughtUpAt = Date.now();
        return;
      }
      yield page;
      this.#cursor = page.next_cursor;
    }
  }

  /** One pass, event by event. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.items;
  }
}
