import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api';
import { type Receiver, startReceiver } from '../support/receiver';

/**
 * The documentation keeps its promises: the README stays a short front page, no link leaves the
 * repository or points at nothing, and every example of docs/api.md answers what it shows.
 *
 * The convention of docs/api.md: a ```sh block holding one `curl` whose last line ends with
 * `# <status>`, followed by a ```json block with the body the API answers (none for a 204). The
 * pairs run in order on a fresh store, with $API, $KEY (publisher dev-publisher), $OTHER_KEY
 * (publisher acme) and $THIRD_KEY (publisher globex), and a webhook receiver answering 204 where the docs show
 * http://127.0.0.1:4000. Times, durations in seconds and request ids match any value of their
 * kind; a ban id, and a random or derived id of a known prefix (`key_`, `evt_`, `wh_`, `whsec_`,
 * `apl_`), matches any such id, but the same one everywhere it appears, and later requests that use
 * it, and messages that quote it, are sent and compared with the real one. Each request waits
 * for the events of the ones before it to be dispatched and their export jobs to run, and a GET
 * whose answer differs is asked again for a few seconds (webhook deliveries are attempted in the
 * background).
 */

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
const markdownFiles = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

const README_MAX_LINES = 200;

describe('the README', () => {
  it(`is a front page of at most ${README_MAX_LINES} lines`, () => {
    expect(read('README.md').trimEnd().split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });
});

/** Markdown without its code: fenced blocks and inline code hold no links. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const anchors = (text: string) =>
  new Set(
    [...text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+)$/gm)].map(([, heading = '']) =>
      heading
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    ),
  );

describe('links in README.md and docs/*.md', () => {
  it.each(markdownFiles)('%s links only to files and headings that exist in the repository', (file) => {
    const text = read(file);
    const targets = [
      ...[...prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map(([, target = '']) => target),
      ...[...text.matchAll(/^\[[^\]]+\]:\s*(\S+)/gm)].map(([, target = '']) => target),
    ];
    const problems: string[] = [];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
        problems.push(`${target}: leaves the repository`);
        continue;
      }
      const [path = '', fragment] = target.split('#');
      const absolute = path ? resolve(dirname(join(root, file)), decodeURI(path)) : join(root, file);
      const inside = relative(root, absolute);
      if (inside.startsWith('..')) {
        problems.push(`${target}: leaves the repository`);
      } else if (!existsSync(absolute)) {
        problems.push(`${target}: no such file`);
      } else if (
        fragment &&
        absolute.endsWith('.md') &&
        !anchors(readFileSync(absolute, 'utf8')).has(fragment)
      ) {
        problems.push(`${target}: no such heading`);
      }
    }
    expect(problems).toEqual([]);
  });
});

interface Example {
  /** 1-based line of the curl in docs/api.md, for messages. */
  line: number;
  command: string;
  status: number;
  /** The answer shown; the empty string for a status shown without a body (204). */
  body: unknown;
}

/** The (curl, answer) pairs of docs/api.md, in order, and the curls with a status but no answer. */
const examples = (text: string): Example[] => {
  const found: Example[] = [];
  const pair = /^```sh\n(curl [^`]*?)\n```(?:\n+```json\n([\s\S]*?)\n```$)?/gm;
  for (const match of text.matchAll(pair)) {
    const [, block = '', json] = match;
    const status = /#\s*(\d{3})\s*$/.exec(block);
    const line = text.slice(0, match.index).split('\n').length + 1;
    if (!status && json === undefined) continue; // a command to copy, not an example
    if (!status) throw new Error(`docs/api.md:${line}: the curl does not end with "# <status>"`);
    const body = json === undefined ? '' : JSON.parse(json);
    found.push({ line, command: block, status: Number(status[1]), body });
  }
  return found;
};

/** Shell words, as bash splits them: quotes, backslash-newline, $VARS and comments; nothing more. */
const shellWords = (command: string, vars: Record<string, string>): string[] => {
  const words: string[] = [];
  let word: string | undefined;
  const expand = (s: string) =>
    s.replace(/\$([A-Z_]+)/g, (_, name: string) => {
      const value = vars[name];
      if (value === undefined) throw new Error(`unknown variable $${name}`);
      return value;
    });
  const text = command.replace(/\\\n/g, ' ');
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
      i += 1;
    } else if (c === '#' && word === undefined) {
      i = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i);
    } else if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end === -1) throw new Error(`unclosed ${c} in: ${command}`);
      const quoted = text.slice(i + 1, end);
      word = (word ?? '') + (c === '"' ? expand(quoted) : quoted);
      i = end + 1;
    } else {
      const run = /^[^\s'"]+/.exec(text.slice(i))?.[0] ?? c;
      word = (word ?? '') + expand(run);
      i += run.length;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
};

interface CurlRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  body: string | undefined;
}

/** The few curl options the examples use; any other one fails the test, so they stay in this subset. */
const parseCurl = (words: string[]): CurlRequest => {
  if (words[0] !== 'curl') throw new Error(`not a curl: ${words.join(' ')}`);
  let method: string | undefined;
  let url: string | undefined;
  let body: string | undefined;
  const headers: Record<string, string | string[]> = {};
  for (let i = 1; i < words.length; i += 1) {
    const word = words[i] as string;
    const value = () => {
      i += 1;
      const next = words[i];
      if (next === undefined) throw new Error(`${word} needs a value`);
      return next;
    };
    if (word === '-s') continue;
    if (word === '-X') method = value();
    else if (word === '-d') body = value();
    else if (word === '-H') {
      const header = value();
      const colon = header.indexOf(':');
      const name = header.slice(0, colon).trim();
      const headerValue = header.slice(colon + 1).trim();
      const before = headers[name];
      headers[name] = before === undefined ? headerValue : [before, headerValue].flat();
    } else if (word.startsWith('-')) throw new Error(`curl option ${word} is not supported by this test`);
    else url = word;
  }
  if (!url) throw new Error(`no URL in: curl ${words.slice(1).join(' ')}`);
  // curl's own defaults: -d makes a POST with a form content type unless told otherwise.
  if (body !== undefined && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
  }
  return { method: method ?? (body === undefined ? 'GET' : 'POST'), url, headers, body };
};

/** Sent over node:http rather than fetch, which would fold a repeated header into one. */
const send = (req: CurlRequest) =>
  new Promise<{ status: number; text: string }>((done, fail) => {
    const outgoing = httpRequest(req.url, { method: req.method, headers: req.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        done({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', fail);
    });
    outgoing.on('error', fail);
    outgoing.end(req.body);
  });

const TIME_FIELDS = new Set([
  'created_at',
  'updated_at',
  'revoked_at',
  'evaluated_at',
  'policy_updated_at',
  'occurred_at',
  'last_attempt_at',
  'next_attempt_at',
  'delivered_at',
  'last_delivered_at',
  'decided_at',
  'applied_at',
  'oldest_open_at',
  'first_banned_at',
  'last_banned_at',
  'computed_at',
  'first_global_ban_at',
  'last_global_ban_at',
  'claimed_until',
  // An export's point in time: its first page's now.
  'as_of',
  // An export job's end, and when its files' URLs stop working.
  'finished_at',
  'url_expires_at',
]);
/**
 * Durations in whole seconds (an appeal's age, its time to decision) or milliseconds (the feed's
 * delay): any such count.
 */
const DURATION_FIELDS = new Set(['oldest_open_age_seconds', 'time_to_decision_seconds', 'delay_ms']);
/**
 * Random or derived ids: any value with the same prefix (`key_`, `evt_`, `wh_`, `whsec_`, `apl_`,
 * `dep_`) and length.
 */
const OPAQUE_FIELDS = new Set([
  'key_id',
  'event_id',
  'webhook_id',
  'secret',
  'appeal_id',
  'deployment_id',
  // A person's id (a UUID) and their one-time password: random, of a fixed length.
  'person_id',
  'temporary_password',
  // An export job's id.
  'export_id',
]);
/**
 * An export file's download URL: signed by the server (a secret of its own run) and good until a
 * time, so any URL of the local server's that names the same file, with an expiry and a signature.
 */
const EXPORT_FILE_URL =
  /^http:\/\/[^/]+\/export-files\/[^/]+\/exp_[A-Za-z0-9_-]{22}\/([a-z]+-\d{5}\.jsonl)\?expires=\d+&signature=[0-9a-f]{64}$/;
const ID_FIELDS = new Set(['ban_id', 'next_cursor']);
/** Where the docs' webhook receiver listens; the test's own receiver stands in for it. */
const RECEIVER_SHOWN = 'http://127.0.0.1:4000';
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** `shown` stands for `got`: the same one wherever it is shown, and no other shown id stands for it. */
const sameId = (shown: number | string, got: number | string, ids: Ids, at: string): string[] => {
  const known = ids.get(shown);
  if (known === undefined && [...ids.values()].includes(got)) {
    return [`${at}: a new id, got ${got}, which the docs show as another`];
  }
  if (known === undefined) ids.set(shown, got);
  return known === undefined || known === got ? [] : [`${at}: ${shown} is ${known}, got ${got}`];
};

/** Each id shown (ban ids, opaque ids) → the one this run made. */
type Ids = Map<number | string, number | string>;

/**
 * The differences between what the docs show and what the API answered. `ids` maps each id
 * shown to the one the API gave, and grows as new ones are met.
 */
const differences = (shown: unknown, got: unknown, ids: Ids, at = '', field = ''): string[] => {
  if (TIME_FIELDS.has(field) && typeof shown === 'string') {
    return typeof got === 'string' && ISO_TIME.test(got) ? [] : [`${at}: a time, got ${JSON.stringify(got)}`];
  }
  if (DURATION_FIELDS.has(field) && typeof shown === 'number') {
    return Number.isSafeInteger(got) && (got as number) >= 0
      ? []
      : [`${at}: a duration, got ${JSON.stringify(got)}`];
  }
  if (OPAQUE_FIELDS.has(field) && typeof shown === 'string') {
    const prefix = shown.slice(0, shown.indexOf('_') + 1);
    return typeof got === 'string' && got.startsWith(prefix) && got.length === shown.length
      ? sameId(shown, got, ids, at)
      : [`${at}: an id like ${shown}, got ${JSON.stringify(got)}`];
  }
  if (field === 'url' && typeof shown === 'string' && EXPORT_FILE_URL.test(shown)) {
    const file = EXPORT_FILE_URL.exec(shown)?.[1];
    return typeof got === 'string' && EXPORT_FILE_URL.exec(got)?.[1] === file
      ? []
      : [`${at}: a download URL of ${file}, got ${JSON.stringify(got)}`];
  }
  if (field === 'request_id' && typeof shown === 'string') {
    return typeof got === 'string' && got.length > 0
      ? []
      : [`${at}: a request id, got ${JSON.stringify(got)}`];
  }
  if (ID_FIELDS.has(field) && typeof shown === 'number') {
    return typeof got === 'number'
      ? sameId(shown, got, ids, at)
      : [`${at}: a ban id, got ${JSON.stringify(got)}`];
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(got) || got.length !== shown.length) {
      return [`${at}: ${shown.length} items, got ${JSON.stringify(got)}`];
    }
    return shown.flatMap((item, i) => differences(item, got[i], ids, `${at}[${i}]`, field));
  }
  if (shown !== null && typeof shown === 'object') {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) {
      return [`${at}: an object, got ${JSON.stringify(got)}`];
    }
    // The fields of a duration object (`time_to_decision_seconds`: its median, its p90) are durations.
    const inner = (key: string) => (DURATION_FIELDS.has(field) ? field : key);
    const keys = new Set([...Object.keys(shown), ...Object.keys(got)]);
    return [...keys].flatMap((key) =>
      key in shown && key in got
        ? differences(
            (shown as Record<string, unknown>)[key],
            (got as Record<string, unknown>)[key],
            ids,
            `${at}.${key}`,
            inner(key),
          )
        : [`${at}.${key}: ${key in shown ? 'missing' : 'not shown in the docs'}`],
    );
  }
  // A message quoting an id the docs showed earlier (`… an open appeal: apl_…`) quotes the real
  // one; so does a text naming a ban id (an export's `external_id`, `ban:<ban_id>`).
  const expected =
    typeof shown === 'string'
      ? [...ids].reduce(
          (text, [id, real]) =>
            typeof id === 'string' && typeof real === 'string'
              ? text.replaceAll(id, real)
              : typeof id === 'number' && typeof real === 'number'
                ? text.replaceAll(`ban:${id}`, `ban:${real}`)
                : text,
          shown,
        )
      : shown;
  return Object.is(expected, got)
    ? []
    : [`${at}: ${JSON.stringify(shown)} shown, got ${JSON.stringify(got)}`];
};

describe('the examples of docs/api.md', () => {
  let api: TestApi;
  let receiver: Receiver;
  let vars: Record<string, string>;
  const ids: Ids = new Map();
  const pairs = examples(read('docs/api.md'));

  beforeAll(async () => {
    // With the local identity provider, whose people the people routes manage.
    [api, receiver] = await Promise.all([startTestApi({ people: true }), startReceiver()]);
    const [own, other, third] = await Promise.all([
      api.createKey('dev-publisher'),
      api.createKey('acme'),
      api.createKey('globex'),
    ]);
    vars = { API: api.url, KEY: own.api_key, OTHER_KEY: other.api_key, THIRD_KEY: third.api_key };
  });
  afterAll(async () => {
    await api?.close();
    await receiver?.close();
  });

  it('has request and answer pairs to check', () => {
    expect(pairs.length).toBeGreaterThan(10);
  });

  // One test, in order: each example runs on the state the ones before it left.
  it('answers each request as shown, in order', async () => {
    for (const example of pairs) {
      // The ids the docs show stand for the ones this run made, the receiver for the test's.
      let command = example.command.replaceAll(RECEIVER_SHOWN, receiver.url);
      for (const [shown, real] of ids) command = command.replaceAll(String(shown), String(real));
      const shown = JSON.parse(JSON.stringify(example.body).replaceAll(RECEIVER_SHOWN, receiver.url));
      const req = parseCurl(shellWords(command, vars));
      const where = `docs/api.md:${example.line} ${req.method} ${req.url.slice(vars.API?.length)}`;
      await api.settle();
      // And for an export job started before it to have run (docs/api.md's reads it done).
      await api.exportsSettled();
      const until = Date.now() + 5_000;
      for (;;) {
        const res = await send(req);
        let body: unknown;
        try {
          body = JSON.parse(res.text);
        } catch {
          body = res.text;
        }
        const trial: Ids = new Map(ids);
        const found = differences(shown, body, trial);
        if (
          req.method === 'GET' &&
          (res.status !== example.status || found.length > 0) &&
          Date.now() < until
        ) {
          await new Promise((done) => setTimeout(done, 100));
          continue;
        }
        expect(res.status, `${where}: status (body ${res.text})`).toBe(example.status);
        expect(found, where).toEqual([]);
        for (const [id, real] of trial) ids.set(id, real);
        break;
      }
    }
  });
});
