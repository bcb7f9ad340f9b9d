import { type ImportRequest, type ImportResult, importResultSchema } from '../../lib/model/imports';
import { describeAnswer, describeNoAnswer, retryAfterMs, sleep } from '../api-answers';

/**
 * Sends one batch to `POST /v1/imports` and reads its answer. A batch is safe to send again (the
 * server answers a repeated batch_id as it did the first time), so a 429, a 503, a 5xx or a lost
 * connection is retried with backoff (Retry-After when given). A 429 is the service asking the
 * import to wait (its throttle, or its events catching up with the rows already sent:
 * docs/import-export.md): it spends no attempt, and the run fails only when the service has asked
 * to wait for `waitLimitMs` on end. What no retry can mend (401, 403, a 400 for the whole request,
 * an answer not of the contract) fails the run.
 */

export type ImportAnswer = ImportResult;
/** A request's body with its rows already serialised (each row's JSON text, in order). */
export interface ImportBatch {
  batch_id: ImportRequest['batch_id'];
  dry_run?: boolean;
  rows: string[];
}

/** The body of a batch, its rows spliced in as they were serialised. */
export const importBody = (batch: ImportBatch) =>
  `{"batch_id":${JSON.stringify(batch.batch_id)},${batch.dry_run ? '"dry_run":true,' : ''}"rows":[${batch.rows.join(',')}]}`;

/** What importBody adds around the rows, at most (a 64-character batch id, dry_run, brackets and commas). */
export const BODY_OVERHEAD_BYTES = 128;

/** A failure of the whole run (exit 1), with what the server said. */
export class ImportFailure extends Error {}

export interface ClientOptions {
  url: string;
  key: string;
  game: string | undefined;
  /** Attempts per batch before the run fails (default 8). */
  attempts?: number;
  /** First backoff in ms, doubled per attempt up to 30 s (default 500). */
  backoffMs?: number;
  /** How long a batch may be answered 429 on end before the run fails (default 15 minutes). */
  waitLimitMs?: number;
}

export const importClient = ({
  url,
  key,
  game,
  attempts = 8,
  backoffMs = 500,
  waitLimitMs = 15 * 60_000,
}: ClientOptions) => {
  const endpoint = new URL('/v1/imports', url).href;
  const headers: Record<string, string> = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
  };
  if (game !== undefined) headers['x-game-id'] = game;
  return async (batch: ImportBatch): Promise<ImportAnswer> => {
    const body = importBody(batch);
    let wait = backoffMs;
    let last = '';
    /** When the service began asking this batch to wait, if it is asking now. */
    let waitingSince: number | undefined;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      let response: Response;
      try {
        response = await fetch(endpoint, { method: 'POST', headers, body });
      } catch (error) {
        last = describeNoAnswer(endpoint, error);
        await sleep(wait);
        wait = Math.min(wait * 2, 30_000);
        continue;
      }
      const text = await response.text();
      if (response.ok) {
        let parsed: ReturnType<typeof importResultSchema.safeParse>;
        try {
          parsed = importResultSchema.safeParse(JSON.parse(text));
        } catch {
          throw new ImportFailure(`batch ${batch.batch_id}: the answer is not JSON: ${text.slice(0, 200)}`);
        }
        if (!parsed.success || parsed.data.rows.length !== batch.rows.length)
          throw new ImportFailure(
            `batch ${batch.batch_id}: the answer is not one outcome per row of the batch`,
          );
        return parsed.data;
      }
      last = describeAnswer(response.status, text);
      if (response.status === 429) {
        waitingSince ??= Date.now();
        if (Date.now() - waitingSince >= waitLimitMs)
          throw new ImportFailure(
            `batch ${batch.batch_id}: the service asked to wait for ${Math.round(waitLimitMs / 60_000)} minutes on end: ${last}`,
          );
        await sleep(retryAfterMs(response.headers.get('retry-after')) ?? backoffMs);
        attempt--;
        continue;
      }
      waitingSince = undefined;
      if (response.status >= 500) {
        await sleep(retryAfterMs(response.headers.get('retry-after')) ?? wait);
        wait = Math.min(wait * 2, 30_000);
        continue;
      }
      throw new ImportFailure(`batch ${batch.batch_id}: ${last}`);
    }
    // A request the API cannot finish before its deadline answers 503 every time: fewer rows a request can.
    const hint = last.startsWith('503')
      ? ' (if every attempt ran into the deadline, a smaller --batch helps)'
      : '';
    throw new ImportFailure(`batch ${batch.batch_id}: gave up after ${attempts} attempts: ${last}${hint}`);
  };
};
