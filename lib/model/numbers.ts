/**
 * A whole number written in digits (no sign, exponent or point), as a number, or undefined when it
 * is not one or is past Number.MAX_SAFE_INTEGER (where two numbers share one double). Every id,
 * position and cursor the API reads goes through this one decoder. No zod here: the events
 * dispatcher's bundle decodes positions too.
 */
export const parseSafeInteger = (text: string): number | undefined => {
  if (!/^[0-9]+$/.test(text)) return undefined;
  const digits = text.replace(/^0+(?=[0-9])/, '');
  if (digits.length > 16) return undefined;
  const value = Number(digits);
  return Number.isSafeInteger(value) ? value : undefined;
};
