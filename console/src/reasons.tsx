import { DURATION_PRESETS } from '@kernel/reason-catalogue';
import { useEffect, useState } from 'preact/hooks';
import type { Call, Schemas } from './api';
import { useRequest } from './use-request';

/**
 * The reason catalogue (`GET`/`PUT /v1/reasons`): what the create-ban form reads of it (the
 * reasons to offer, the duration presets, whether free codes are refused), and how its durations
 * read. Its editor, in the Policy view, is reasons-editor.tsx.
 */

export type ReasonCatalogue = Schemas['ReasonCatalogue'];
export type CatalogueReason = Schemas['CatalogueReason'];
export { DURATION_PRESETS };

/** A duration as a moderator reads it: a preset's name, else days, hours or seconds. */
export const durationWords = (seconds: number | null): string => {
  if (seconds === null) return 'permanent';
  const preset = DURATION_PRESETS.find((p) => p.seconds === seconds);
  if (preset) return preset.label;
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  return `${seconds} s`;
};

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The expiry `seconds` from now, as a datetime-local input holds it (local time, to the minute,
 * rounded up so the ban lasts at least that long); '' for permanent.
 */
export const expiryIn = (seconds: number | null, now = Date.now()): string => {
  if (seconds === null) return '';
  const at = new Date(Math.ceil((now + seconds * 1000) / 60_000) * 60_000);
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
};

/**
 * The catalogue, read once when `enabled` (the caller may read it): null until read, and null
 * again if it could not be (the form then takes free codes, and the API still judges them).
 */
export const useReasonCatalogue = (call: Call, enabled: boolean) => {
  const [catalogue, setCatalogue] = useState<ReasonCatalogue | null>(null);
  // Each read is a new question; one under way when the form leaves, or stops being enabled, is dropped.
  const request = useRequest({ latest: true });
  useEffect(() => {
    if (!enabled) return;
    void request.run(
      () => call('get', '/v1/reasons', {}),
      (answer) => setCatalogue(answer.body as ReasonCatalogue),
      (answer) => answer.status === 200,
    );
    return request.forget;
  }, [enabled]);
  return catalogue;
};
