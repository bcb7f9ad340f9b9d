import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Call, Schemas } from './api';
import { useRequest } from './use-request';

/**
 * The directory of publishers that make global bans (`GET /v1/publishers`), which the trust
 * settings choose from and the publisher's own name is shown in.
 */

export type DirectoryEntry = Schemas['DirectoryEntry'];

/** Pages of the directory read at most (200 each). */
const DIRECTORY_PAGES = 10;

/** Every page of the directory as one answer, `complete` false when there were more; else the refusal. */
const everyPublisher = async (call: Call) => {
  const items: DirectoryEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < DIRECTORY_PAGES; page++) {
    const answer = await call('get', '/v1/publishers', {
      query: { limit: 200, ...(cursor === undefined ? {} : { cursor }) },
    });
    if (answer.status !== 200) return answer;
    items.push(...answer.body.items);
    if (answer.body.next_cursor === null)
      return { ok: true as const, status: 200 as const, body: { items, complete: true }, retryAfter: null };
    cursor = answer.body.next_cursor;
  }
  return { ok: true as const, status: 200 as const, body: { items, complete: false }, retryAfter: null };
};

/** Every publisher of the directory, page by page; `complete` false when there were more. */
export const useDirectory = (call: Call) => {
  const [entries, setEntries] = useState<DirectoryEntry[] | null>(null);
  const [complete, setComplete] = useState(true);
  const request = useRequest();
  const read = () =>
    request.run(
      () => everyPublisher(call),
      (answer) => {
        setEntries(answer.body.items);
        setComplete(answer.body.complete);
      },
    );
  useEffect(() => {
    void read();
  }, []);
  // The same message while the refusal is the same: a new one would take the focus again.
  const message = useMemo(
    () =>
      request.message && {
        ...request.message,
        text: `The directory of publishers could not be read. ${request.message.text}`,
      },
    [request.message],
  );
  return { entries, complete, message, busy: request.busy, read };
};

export type Directory = ReturnType<typeof useDirectory>;

/** A publisher as the directory names it: its own name and always its id (a name proves nothing). */
export const publisherLabel = (id: string, entries: readonly DirectoryEntry[] | null): string => {
  const name = entries?.find((e) => e.publisher_id === id)?.display_name;
  return name ? `${name} (${id})` : id;
};
