import { expect } from 'vitest';
import { AUDIT_EVENT_PREFIX, auditPartition } from '../../lib/storage/keys';
import type { TestApi } from './api';
import { storedPartition } from './fixtures';

/**
 * The audit events stored for a publisher, newest first, read from the table (not the API); with
 * `since` (an ISO time), only those that happened then or later (a test's own, in a long trail).
 */
export const storedEvents = async (
  publisherId: string,
  since?: string,
): Promise<Array<Record<string, any>>> =>
  // From `EVENT#` on: the trail's index copies (`BY#…`, `DEV#…`) sort before it, and are not events.
  (
    await storedPartition(auditPartition(publisherId), {
      newestFirst: true,
      skFrom: `${AUDIT_EVENT_PREFIX}${since ?? ''}`,
    })
  ).map((item) => item.event as Record<string, any>);

/** Every event `key` can read through `GET /v1/audit` with `query`, following the cursor to the end. */
export const auditPages = async (api: TestApi, key: string, query = '', limit = 200) => {
  const events: Array<Record<string, any>> = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const params = new URLSearchParams(query);
    params.set('limit', String(limit));
    if (cursor) params.set('cursor', cursor);
    const res = await api.request('GET', `/v1/audit?${params}`, { key });
    expect(res.status).toBe(200);
    events.push(...res.body.items);
    cursor = res.body.next_cursor;
    pages += 1;
  } while (cursor);
  return { events, pages };
};
