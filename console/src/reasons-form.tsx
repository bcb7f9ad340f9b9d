import { PLAYER_MESSAGE_PATTERN, playerMessageLength } from '@kernel/player-message';
import {
  DURATION_PRESETS,
  REASON_DURATION_MAX_SECONDS,
  REASON_LABEL_MAX,
  REASON_LABEL_RULE,
} from '@kernel/reason-catalogue';
import {
  STATEMENT_GROUND_MAX,
  STATEMENT_URL_PATTERN,
  STATEMENT_URL_RULE,
  type StatementCategory,
  statementCategories,
} from '@kernel/statement-of-reasons';
import { useDraft } from './drafts';
import type { CatalogueReason, ReasonCatalogue } from './reasons';
import { parseRows, ReasonTranslations, rowsOf, rowsText, translationsOf } from './reasons-translations';
import { Field, FormActions } from './ui';
import { type FieldErrors, useForm } from './use-form';
import type { Request } from './use-request';
import { check, parsePlayerMessage } from './validation';

/** The reason catalogue editor's form: one reason, new or edited, checked by the API's rules. */

const labelPattern = new RegExp(PLAYER_MESSAGE_PATTERN, 'u');

/** A label: the API's rule (kernel/reason-catalogue.ts). */
const checkLabel = (label: string): string | undefined => {
  const length = playerMessageLength(label);
  if (length === 0) return 'must be at least 1 character';
  if (length > REASON_LABEL_MAX) return `must be at most ${REASON_LABEL_MAX} characters`;
  return labelPattern.test(label) ? undefined : REASON_LABEL_RULE;
};

const CUSTOM = 'custom';

type Draft = {
  code: string;
  label: string;
  ban_type: CatalogueReason['ban_type'];
  scope: CatalogueReason['scope'];
  /** A preset's seconds ('' for permanent), or CUSTOM. */
  duration: string;
  customSeconds: string;
  player_message: string;
  /** The statement of reasons' defaults its bans take: '' leaves the service's own default. */
  terms_clause: string;
  terms_url: string;
  category: StatementCategory | '';
  /** Its translations, as the rows of reasons-translations.tsx in JSON: one string a draft keeps. */
  translations: string;
};

const emptyDraft: Draft = {
  code: '',
  label: '',
  ban_type: 'cheat',
  scope: 'game',
  duration: '',
  customSeconds: '',
  player_message: '',
  terms_clause: '',
  terms_url: '',
  category: '',
  translations: '[]',
};

const draftOf = (reason: CatalogueReason): Draft => {
  const preset = DURATION_PRESETS.some((p) => p.seconds === reason.duration_seconds);
  return {
    code: reason.code,
    label: reason.label,
    ban_type: reason.ban_type,
    scope: reason.scope,
    duration: preset ? String(reason.duration_seconds ?? '') : CUSTOM,
    customSeconds: preset ? '' : String(reason.duration_seconds),
    player_message: reason.player_message ?? '',
    terms_clause: reason.statement?.terms_clause ?? '',
    terms_url: reason.statement?.terms_url ?? '',
    category: reason.statement?.category ?? '',
    translations: rowsText(rowsOf(reason.translations)),
  };
};

/** A clause of the terms: one line, as the API takes it. */
const checkClause = (clause: string): string | undefined => {
  if (clause === '') return undefined;
  if (playerMessageLength(clause) > STATEMENT_GROUND_MAX)
    return `must be at most ${STATEMENT_GROUND_MAX} characters`;
  return labelPattern.test(clause) ? undefined : REASON_LABEL_RULE;
};

/**
 * The statement defaults the draft makes of the reason's: the fields this form edits set or
 * cleared, the others (set through the API: facts, source, ...) kept as they were.
 */
const statementOf = (draft: Draft, kept: CatalogueReason['statement']) => {
  const statement: Record<string, unknown> = { ...kept };
  const edited = {
    terms_clause: draft.terms_clause.trim(),
    terms_url: draft.terms_url.trim(),
    category: draft.category,
  };
  for (const [field, value] of Object.entries(edited)) {
    if (value === '') delete statement[field];
    else statement[field] = value;
  }
  return Object.keys(statement).length > 0 ? (statement as CatalogueReason['statement']) : undefined;
};

/** The draft as a reason, or the field errors that keep it from being one. */
const reasonOf = (
  draft: Draft,
  others: readonly CatalogueReason[],
  kept: CatalogueReason['statement'],
  defaultLocale: string,
  keptTranslations: CatalogueReason['translations'],
): { reason: CatalogueReason } | { errors: FieldErrors } => {
  const code = draft.code.trim();
  const message = parsePlayerMessage(draft.player_message);
  let duration: number | null = draft.duration === '' ? null : Number(draft.duration);
  let durationError: string | undefined;
  if (draft.duration === CUSTOM) {
    duration = /^[0-9]{1,10}$/.test(draft.customSeconds.trim())
      ? Number(draft.customSeconds.trim())
      : Number.NaN;
    if (!Number.isSafeInteger(duration) || duration < 1 || duration > REASON_DURATION_MAX_SECONDS)
      durationError = `must be a whole number of seconds from 1 to ${REASON_DURATION_MAX_SECONDS} (ten years)`;
  }
  const translated = translationsOf(parseRows(draft.translations), defaultLocale, keptTranslations);
  const errors: FieldErrors = {
    ...translated.errors,
    code:
      check('reason_code', code) ??
      (others.some((r) => r.code === code) ? 'is already in the catalogue' : undefined),
    label: checkLabel(draft.label.trim()),
    duration_seconds: durationError,
    player_message: message.ok ? undefined : message.message,
    terms_clause: checkClause(draft.terms_clause.trim()),
    terms_url:
      draft.terms_url.trim() === '' || STATEMENT_URL_PATTERN.test(draft.terms_url.trim())
        ? undefined
        : STATEMENT_URL_RULE,
  };
  if (Object.values(errors).some(Boolean) || !message.ok) return { errors };
  const statement = statementOf(draft, kept);
  return {
    reason: {
      code,
      label: draft.label.trim(),
      ban_type: draft.ban_type,
      scope: draft.scope,
      duration_seconds: duration,
      player_message: message.value ?? null,
      ...(statement ? { statement } : {}),
      ...(translated.translations ? { translations: translated.translations } : {}),
    },
  };
};

/** A select's value, as the option it is. */
const chosen = <T extends string>(e: Event) => (e.currentTarget as HTMLSelectElement).value as T;

/** The draft of a new reason, or of an edit of one (by its code). */
export const reasonDraftName = (existing: CatalogueReason | undefined) =>
  existing ? `reason:${existing.code}` : 'reason-new';

const DRAFTED_REASON = [
  'code',
  'label',
  'ban_type',
  'scope',
  'duration',
  'customSeconds',
  'player_message',
  'terms_clause',
  'terms_url',
  'category',
  'translations',
] as const satisfies ReadonlyArray<keyof Draft>;

export const ReasonForm = ({
  editing,
  catalogue,
  request,
  onSave,
  onCancel,
}: {
  /** The reason being edited (its index), or null for a new one. */
  editing: number | null;
  catalogue: ReasonCatalogue;
  /** The editor's request, whose refusal names this reason's fields. */
  request: Request;
  onSave: (reason: CatalogueReason) => void;
  onCancel: () => void;
}) => {
  const existing = editing === null ? undefined : catalogue.reasons[editing];
  // What the page finds is shown under the fields alone: the editor's message stays what it was.
  const blank = existing ? draftOf(existing) : emptyDraft;
  const form = useForm(blank, { ...request, setMessage: () => {} });
  // What is typed survives a reload or a new sign-in (drafts.ts), until saved or cancelled (the editor drops it).
  useDraft(reasonDraftName(existing), form, blank, DRAFTED_REASON);
  const draft = form.values;
  const index = editing ?? catalogue.reasons.length;
  /** The page's error, else the API's for this reason (`reasons.<i>.<field>`), else for the field. */
  const err = (field: string) => form.error(field, `reasons.${index}.${field}`) ?? form.error(field);
  const title = existing ? `Edit reason ${existing.code}` : 'Add a reason';
  const { busy } = request;

  const submit = (e: Event) => {
    e.preventDefault();
    const result = reasonOf(
      draft,
      catalogue.reasons.filter((_, i) => i !== editing),
      existing?.statement,
      catalogue.default_locale,
      existing?.translations,
    );
    form.accept('errors' in result ? result.errors : {}, '');
    if ('errors' in result) return;
    onSave(result.reason);
  };

  return (
    <form onSubmit={submit} noValidate aria-labelledby="reason-form-heading" class="panel">
      <h4 id="reason-form-heading">{title}</h4>
      <Field
        id="reason-code"
        label="Code"
        value={draft.code}
        onValue={form.set('code')}
        error={err('code')}
        hint="The ban's reason_code: 1-64 characters of A-Z a-z 0-9 . _ : -"
        required
      />
      <Field
        id="reason-label"
        label="Label"
        value={draft.label}
        onValue={form.set('label')}
        error={err('label')}
        hint={`What moderators pick from: 1-${REASON_LABEL_MAX} characters, one line.`}
        required
      />
      <div class="field">
        <label for="reason-type">Default ban type</label>
        <select id="reason-type" value={draft.ban_type} onChange={(e) => form.set('ban_type')(chosen(e))}>
          <option value="cheat">cheat</option>
          <option value="social">social</option>
        </select>
      </div>
      <div class="field">
        <label for="reason-scope">Default scope</label>
        <select id="reason-scope" value={draft.scope} onChange={(e) => form.set('scope')(chosen(e))}>
          <option value="game">game</option>
          <option value="publisher">publisher</option>
          <option value="global">global</option>
        </select>
      </div>
      <div class="field">
        <label for="reason-duration">Duration</label>
        <select id="reason-duration" value={draft.duration} onChange={(e) => form.set('duration')(chosen(e))}>
          {DURATION_PRESETS.map((p) => (
            <option key={p.label} value={p.seconds === null ? '' : String(p.seconds)}>
              {p.label}
            </option>
          ))}
          <option value={CUSTOM}>other (seconds)</option>
        </select>
      </div>
      {draft.duration === CUSTOM && (
        <Field
          id="reason-seconds"
          label="Duration in seconds"
          value={draft.customSeconds}
          onValue={form.set('customSeconds')}
          error={err('duration_seconds')}
          hint="At most ten years."
          required
        />
      )}
      <Field
        id="reason-player-message"
        label="Message for the player (optional)"
        value={draft.player_message}
        onValue={form.set('player_message')}
        error={err('player_message')}
        hint="Plain text, one paragraph, at most 500 characters."
      />
      <fieldset>
        <legend>Statement of reasons its bans carry (what the player is told of why)</legend>
        <Field
          id="reason-clause"
          label="Clause of your terms (optional)"
          value={draft.terms_clause}
          onValue={form.set('terms_clause')}
          error={err('terms_clause')}
          hint="E.g. Terms of service, 7.3: no cheat software. Empty: the label."
        />
        <Field
          id="reason-terms-url"
          label="Address of the clause (optional)"
          value={draft.terms_url}
          onValue={form.set('terms_url')}
          error={err('terms_url')}
          hint="An https URL where the player reads it."
          type="url"
        />
        <div class="field">
          <label for="reason-category">Category</label>
          <select
            id="reason-category"
            value={draft.category}
            onChange={(e) => form.set('category')(chosen<StatementCategory | ''>(e))}
          >
            <option value="">other violation of the terms (the default)</option>
            {statementCategories.map((c) => (
              <option key={c} value={c}>
                {c.replaceAll('_', ' ')}
              </option>
            ))}
          </select>
        </div>
      </fieldset>
      <ReasonTranslations
        rows={parseRows(draft.translations)}
        onRows={(rows) => form.set('translations')(rowsText(rows))}
        defaultLocale={catalogue.default_locale}
        error={(row, locale, field) =>
          form.errors[`translations.${row}.${field}`] ??
          (locale === ''
            ? undefined
            : form.error(
                '',
                `reasons.${index}.translations.${locale}${field === 'locale' ? '' : `.${field}`}`,
              ))
        }
      />
      <FormActions
        busy={busy}
        submit={busy ? 'Saving…' : existing ? 'Save reason' : 'Add reason'}
        onCancel={onCancel}
      />
    </form>
  );
};
