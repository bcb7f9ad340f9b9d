import { LOCALE_PATTERN, LOCALE_RULE, type ReasonTranslation, TRANSLATIONS_MAX } from '@kernel/locales';
import {
  MULTILINE_TEXT_PATTERN,
  MULTILINE_TEXT_RULE,
  PLAYER_MESSAGE_PATTERN,
  playerMessageLength,
} from '@kernel/player-message';
import { REASON_LABEL_MAX, REASON_LABEL_RULE } from '@kernel/reason-catalogue';
import { STATEMENT_FACTS_MAX, STATEMENT_GROUND_MAX } from '@kernel/statement-of-reasons';
import { Field } from './ui';
import type { FieldErrors } from './use-form';
import { parsePlayerMessage } from './validation';

/**
 * A catalogue reason's translations (docs/api.md#languages): for each language, the label, the
 * player message, the clause and the facts its bans read in that language, each with the rules of
 * the field it translates. The form holds them as one string (the rows as JSON), so its draft
 * (drafts.ts) keeps them as it keeps any other field; the texts the form does not edit (the legal
 * ground, the explanation, set through the API) are kept as they were.
 */

const EDITED = ['label', 'player_message', 'terms_clause', 'facts'] as const;
type Edited = (typeof EDITED)[number];

/** One language as the form edits it: its tag, and each text ('' for none). */
export type TranslationRow = { locale: string } & Record<Edited, string>;

export const rowsOf = (translations: Record<string, ReasonTranslation> | undefined): TranslationRow[] =>
  Object.entries(translations ?? {}).map(([locale, t]) => ({
    locale,
    label: t.label ?? '',
    player_message: t.player_message ?? '',
    terms_clause: t.terms_clause ?? '',
    facts: t.facts ?? '',
  }));

/** The rows as the form's field holds them, and back (a damaged draft reads as none). */
export const rowsText = (rows: readonly TranslationRow[]) => JSON.stringify(rows);
export const parseRows = (text: string): TranslationRow[] => {
  try {
    const rows: unknown = JSON.parse(text);
    return Array.isArray(rows)
      ? rows.filter(
          (row): row is TranslationRow =>
            typeof row === 'object' &&
            row !== null &&
            ['locale', ...EDITED].every(
              (field) => typeof (row as Record<string, unknown>)[field] === 'string',
            ),
        )
      : [];
  } catch {
    return [];
  }
};

const oneLine = new RegExp(PLAYER_MESSAGE_PATTERN, 'u');
const paragraphs = new RegExp(MULTILINE_TEXT_PATTERN, 'u');
const text = (value: string, max: number, pattern: RegExp, rule: string) => {
  if (value === '') return undefined;
  if (playerMessageLength(value) > max) return `must be at most ${max} characters`;
  return pattern.test(value) ? undefined : rule;
};

/**
 * The translations the rows make, over the kept texts of the reason's, or the errors by
 * `translations.<row>.<field>`: each tag one of the API's, once, and not the catalogue's own
 * language; each text by its field's rule.
 */
export const translationsOf = (
  rows: readonly TranslationRow[],
  defaultLocale: string,
  kept: Record<string, ReasonTranslation> | undefined,
): { translations: Record<string, ReasonTranslation> | undefined; errors: FieldErrors } => {
  const errors: FieldErrors = {};
  const translations: Record<string, ReasonTranslation> = {};
  const seen = new Set<string>();
  rows.forEach((row, i) => {
    const locale = row.locale.trim();
    const at = (field: string) => `translations.${i}.${field}`;
    errors[at('locale')] = !LOCALE_PATTERN.test(locale)
      ? LOCALE_RULE
      : locale === defaultLocale
        ? `is the catalogue's own language: its texts are the reason's fields`
        : seen.has(locale)
          ? 'is given twice'
          : undefined;
    seen.add(locale);
    const message = parsePlayerMessage(row.player_message.trim());
    errors[at('label')] = text(row.label.trim(), REASON_LABEL_MAX, oneLine, REASON_LABEL_RULE);
    errors[at('player_message')] = message.ok ? undefined : message.message;
    errors[at('terms_clause')] = text(
      row.terms_clause.trim(),
      STATEMENT_GROUND_MAX,
      oneLine,
      REASON_LABEL_RULE,
    );
    errors[at('facts')] = text(row.facts.trim(), STATEMENT_FACTS_MAX, paragraphs, MULTILINE_TEXT_RULE);
    const translation: ReasonTranslation = { ...kept?.[locale] };
    for (const field of EDITED) {
      const value = row[field].trim();
      if (value === '') delete translation[field];
      else translation[field] = value;
    }
    if (Object.keys(translation).length > 0) translations[locale] = translation;
  });
  return { translations: Object.keys(translations).length > 0 ? translations : undefined, errors };
};

const blankRow: TranslationRow = { locale: '', label: '', player_message: '', terms_clause: '', facts: '' };

/** The translations' part of the reason form: a group of fields per language, added and removed here. */
export const ReasonTranslations = ({
  rows,
  onRows,
  defaultLocale,
  error,
}: {
  rows: readonly TranslationRow[];
  onRows: (rows: TranslationRow[]) => void;
  defaultLocale: string;
  /** The page's error for `translations.<row>.<field>`, else the API's for that language's field. */
  error: (row: number, locale: string, field: string) => string | undefined;
}) => {
  const set = (i: number, field: keyof TranslationRow) => (value: string) =>
    onRows(rows.map((row, j) => (j === i ? { ...row, [field]: value } : row)));
  return (
    <fieldset>
      <legend>Translations for players in other languages</legend>
      <p class="hint">
        The reason's own texts are in <code>{defaultLocale}</code>. A player whose game asks for another
        language reads its translation; a text left empty reads in <code>{defaultLocale}</code>.
      </p>
      {rows.map((row, i) => {
        const name = row.locale.trim() || `language ${i + 1}`;
        return (
          // Keyed by position: a row's tag is typed into, so it cannot be the key.
          <fieldset key={i} class="translation">
            <legend>Translation {name}</legend>
            <Field
              id={`reason-translation-${i}-locale`}
              label="Language tag"
              value={row.locale}
              onValue={set(i, 'locale')}
              error={error(i, row.locale.trim(), 'locale')}
              hint="E.g. de, pt-BR or zh-Hant."
              required
            />
            <Field
              id={`reason-translation-${i}-label`}
              label={`Label in ${name} (optional)`}
              value={row.label}
              onValue={set(i, 'label')}
              error={error(i, row.locale.trim(), 'label')}
              hint="Translates the clause when the reason names none."
            />
            <Field
              id={`reason-translation-${i}-player-message`}
              label={`Message for the player in ${name} (optional)`}
              value={row.player_message}
              onValue={set(i, 'player_message')}
              error={error(i, row.locale.trim(), 'player_message')}
            />
            <Field
              id={`reason-translation-${i}-clause`}
              label={`Clause of your terms in ${name} (optional)`}
              value={row.terms_clause}
              onValue={set(i, 'terms_clause')}
              error={error(i, row.locale.trim(), 'terms_clause')}
            />
            <Field
              id={`reason-translation-${i}-facts`}
              label={`Facts for the player in ${name} (optional)`}
              value={row.facts}
              onValue={set(i, 'facts')}
              error={error(i, row.locale.trim(), 'facts')}
              multiline
            />
            <p>
              <button
                type="button"
                class="secondary"
                aria-label={`Remove translation ${name}`}
                onClick={() => onRows(rows.filter((_, j) => j !== i))}
              >
                Remove translation
              </button>
            </p>
          </fieldset>
        );
      })}
      <p>
        <button
          type="button"
          class="secondary"
          disabled={rows.length >= TRANSLATIONS_MAX}
          onClick={() => onRows([...rows, blankRow])}
        >
          Add a translation
        </button>
        {rows.length >= TRANSLATIONS_MAX ? ` A reason holds at most ${TRANSLATIONS_MAX} languages.` : ''}
      </p>
    </fieldset>
  );
};
