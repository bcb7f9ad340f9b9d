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

/**
 * Every inexact number of a JSON text, in order. Meant for text JSON.parse accepted: it skips
 * strings and tracks object keys and array indexes, nothing more.
 */
export const impreciseNumbers = (text: string): ImpreciseNumber[] => {
  const found: ImpreciseNumber[] = [];
  const stack: Array<{ key: string | number; isObject: boolean }> = [];
  let expectingKey = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      const top = stack.at(-1);
      if (expectingKey && top) {
        top.key = JSON.parse(text.slice(i, end + 1)) as string;
        expectingKey = false;
      }
      i = end + 1;
    } else if (c === '{' || c === '[') {
      stack.push({ key: c === '{' ? '' : 0, isObject: c === '{' });
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
      if (!isExactNumber(literal)) found.push({ path: stack.map((frame) => frame.key).join('.'), literal });
      i += literal.length;
    } else {
      i += 1;
    }
  }
  return found;
};
