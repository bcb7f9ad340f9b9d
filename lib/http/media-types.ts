/**
 * Which of two answers' media types a request's `Accept` header (RFC 9110, 12.5.1) prefers. Only
 * what a route offers is weighed: the most specific range naming each type gives its quality
 * (`text/csv` over `text/*` over `*\/*`), a type no range names has quality 0, and a tie, an
 * absent or a malformed header is the first type (the route's default). Nothing here throws: a
 * header we cannot read is no reason to refuse a request.
 */

/** The most of a header read, and of its ranges weighed. */
const ACCEPT_MAX_CHARS = 1024;
const ACCEPT_MAX_RANGES = 32;

interface Range {
  type: string;
  subtype: string;
  q: number;
}

const rangesOf = (header: string): Range[] =>
  header
    .slice(0, ACCEPT_MAX_CHARS)
    .split(',')
    .slice(0, ACCEPT_MAX_RANGES)
    .flatMap((part) => {
      const [media = '', ...params] = part.split(';').map((p) => p.trim().toLowerCase());
      const [type, subtype, extra] = media.split('/');
      if (!type || !subtype || extra !== undefined) return [];
      const quality = params.find((p) => p.startsWith('q='))?.slice(2);
      const q = quality === undefined ? 1 : Number(quality);
      if (!Number.isFinite(q) || q < 0 || q > 1) return [];
      return [{ type, subtype, q }];
    });

/** How much the ranges want `media` (`type/subtype`): the most specific range's quality, else 0. */
const qualityOf = (ranges: readonly Range[], media: string): number => {
  const [type, subtype] = media.split('/');
  const exact = ranges.find((r) => r.type === type && r.subtype === subtype);
  const family = ranges.find((r) => r.type === type && r.subtype === '*');
  const any = ranges.find((r) => r.type === '*' && r.subtype === '*');
  return (exact ?? family ?? any)?.q ?? 0;
};

/** The first of `offered` unless the header wants another strictly more. */
export const preferredMediaType = <M extends string>(
  accept: string | undefined,
  offered: readonly [M, ...M[]],
): M => {
  const [first] = offered;
  if (accept === undefined || accept.trim() === '') return first;
  const ranges = rangesOf(accept);
  let best = first;
  let bestQ = qualityOf(ranges, first);
  for (const media of offered.slice(1)) {
    const q = qualityOf(ranges, media);
    if (q > bestQ) {
      best = media;
      bestQ = q;
    }
  }
  return best;
};
