/**
 * JSON numbers that a double cannot hold exactly. JSON.parse turns `1e400` into Infinity (stored
 * as null) and `12345678901234567890123` into a rounded neighbour, so a ban's `details` would be
 * stored silently changed. The body's numbers are compared, as written, with the double they
 * parse to; a body holding any that differ is refused, naming where each one is.
 */

export interface ImpreciseNumber {
  /** Dotted path from the body's root, e.g. `details.scores.2`. */
  path: string;
  literal: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const PARTS = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A number literal as significant digits and a power of ten: `1.50e2` and `150` agree. */
const canonical = (literal: string): string => {
  const [, whole = '', fraction = '', exponent = '0'] = PARTS.exec(literal) ?? [];
  let digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  let power = Number(exponent) - fraction.length;
  const trailing = /0+$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - trailing);
  power += trailing;
  return `${literal.startsWith('-') ? '-' : ''}${digits}e${power}`;
};

/** Whether the literal's value is exactly the double it parses to (shortest round-trip form). */
export const isExactNumber = (literal: string): boolean => {
  const value = Number(literal);
  return Number.isFinite(value) && canonical(literal) === canonical(JSON.stringify(value));
};

/** How deep a body may nest (objects and arrays); `details` alone may nest 32. */
export const MAX_BODY_DEPTH = 64;

export interface JsonScan {
  /** Numbers a double cannot hold exactly, in order. */
  imprecise: ImpreciseNumber[];
  /** Dotted paths of members whose name appears earlier in the same object, in order. */
  duplicates: string[];
  /**
   * Where the text nests deeper than MAX_BODY_DEPTH (the scan stops there): the top-level member
   * it happens under, or `body` for a top-level array; null when it does not.
   */
  tooDeep: string | null;
}

/**
 * One pass over a JSON text, without recursion (so any depth is safe): its inexact numbers, its
 * repeated member names (JSON.parse keeps the last of each silently, so a validator and a reader
 * could see different values) and whether it nests too deep. Meant for text JSON.parse accepts:
 * it skips strings and tracks object keys and array indexes, nothing more.
 */
export const scanJson = (text: string): JsonScan => {
  const scan: JsonScan = { imprecise: [], duplicates: [], tooDeep: null };
  const stack: Array<{ key: string | number; isObject: boolean; seen?: Set<string> }> = [];
  const pathOf = () => stack.map((frame) => frame.key).join('.');
  let expectingKey = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (expectingKey && top?.seen) {
        let key: string;
        try {
          key = JSON.parse(text.slice(i, end + 1)) as string;
        } catch {
          return scan;
        }
        top.key = key;
        if (top.seen.has(key)) scan.duplicates.push(pathOf());
        top.seen.add(key);
        expectingKey = false;
      }
      i = end + 1;
    } else if (c === '{' || c === '[') {
      if (stack.length >= MAX_BODY_DEPTH) {
        const top = stack[0];
        scan.tooDeep = top?.isObject && top.key !== '' ? String(top.key) : 'body';
        return scan;
      }
      stack.push(c === '{' ? { key: '', isObject: true, seen: new Set() } : { key: 0, isObject: false });
      expectingKey = c === '{';
      i += 1;
    } else if (c === '}' || c === ']') {
      stack.pop();
      i += 1;
    } else if (c === ',') {
      const top = stack.at(-1);
      if (top?.isObject) expectingKey = true;
      else if (top) top.key = (top.key as number) + 1;
      i += 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i;
      const literal = NUMBER.exec(text)?.[0] ?? c;
      if (!isExactNumber(literal)) scan.imprecise.push({ path: pathOf(), literal });
      i += literal.length;
    } else {
      i += 1;
    }
  }
  return scan;
};

/** Every inexact number of a JSON text, in order (scanJson's first finding). */
export const impreciseNumbers = (text: string): ImpreciseNumber[] => scanJson(text).imprecise;
