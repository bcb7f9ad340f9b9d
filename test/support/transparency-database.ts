/**
 * Our copy of the rules the Commission's DSA Transparency Database holds a submitted statement to:
 * its API's StatementStoreRequest (app/Http/Requests/StatementStoreRequest.php) and the keys of the
 * enumerations of app/Models/Statement.php and app/Services/EuropeanCountriesService.php, as of its
 * repository on 2026-06-24 (digital-services-act/transparency-database). Written here, in the
 * tests, so the export (lib/domain/dsa-statements.ts) is checked against the database's rules, not
 * against itself. Only what a statement may hold is here; the platform's token is the submitter's.
 */

const DECISION_PROVISIONS = [
  'DECISION_PROVISION_PARTIAL_SUSPENSION',
  'DECISION_PROVISION_TOTAL_SUSPENSION',
  'DECISION_PROVISION_PARTIAL_TERMINATION',
  'DECISION_PROVISION_TOTAL_TERMINATION',
];
const DECISION_ACCOUNTS = ['DECISION_ACCOUNT_SUSPENDED', 'DECISION_ACCOUNT_TERMINATED'];
const DECISION_GROUNDS = ['DECISION_GROUND_ILLEGAL_CONTENT', 'DECISION_GROUND_INCOMPATIBLE_CONTENT'];
const CONTENT_TYPES = [
  'CONTENT_TYPE_APP',
  'CONTENT_TYPE_AUDIO',
  'CONTENT_TYPE_IMAGE',
  'CONTENT_TYPE_PRODUCT',
  'CONTENT_TYPE_SYNTHETIC_MEDIA',
  'CONTENT_TYPE_TEXT',
  'CONTENT_TYPE_VIDEO',
  'CONTENT_TYPE_OTHER',
];
const STATEMENT_CATEGORIES = [
  'STATEMENT_CATEGORY_ANIMAL_WELFARE',
  'STATEMENT_CATEGORY_CONSUMER_INFORMATION',
  'STATEMENT_CATEGORY_CYBER_VIOLENCE',
  'STATEMENT_CATEGORY_CYBER_VIOLENCE_AGAINST_WOMEN',
  'STATEMENT_CATEGORY_DATA_PROTECTION_AND_PRIVACY_VIOLATIONS',
  'STATEMENT_CATEGORY_ILLEGAL_OR_HARMFUL_SPEECH',
  'STATEMENT_CATEGORY_INTELLECTUAL_PROPERTY_INFRINGEMENTS',
  'STATEMENT_CATEGORY_NEGATIVE_EFFECTS_ON_CIVIC_DISCOURSE_OR_ELECTIONS',
  'STATEMENT_CATEGORY_NOT_SPECIFIED_NOTICE',
  'STATEMENT_CATEGORY_OTHER_VIOLATION_TC',
  'STATEMENT_CATEGORY_PROTECTION_OF_MINORS',
  'STATEMENT_CATEGORY_RISK_FOR_PUBLIC_SECURITY',
  'STATEMENT_CATEGORY_SCAMS_AND_FRAUD',
  'STATEMENT_CATEGORY_SELF_HARM',
  'STATEMENT_CATEGORY_UNSAFE_AND_PROHIBITED_PRODUCTS',
  'STATEMENT_CATEGORY_VIOLENCE',
];
const SOURCE_TYPES = [
  'SOURCE_ARTICLE_16',
  'SOURCE_TRUSTED_FLAGGER',
  'SOURCE_VOLUNTARY',
  'SOURCE_TYPE_OTHER_NOTIFICATION',
];
const AUTOMATED_DETECTIONS = ['Yes', 'No'];
const AUTOMATED_DECISIONS = [
  'AUTOMATED_DECISION_FULLY',
  'AUTOMATED_DECISION_PARTIALLY',
  'AUTOMATED_DECISION_NOT_AUTOMATED',
];
const INCOMPATIBLE_CONTENT_ILLEGALS = ['Yes', 'No'];
const EUROPEAN_COUNTRY_CODES = [
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IS',
  'IT',
  'LI',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'NO',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
];

type Statement = Record<string, unknown>;

const present = (value: unknown) => value !== undefined && value !== null && value !== '';
const length = (value: unknown) => [...String(value)].length;

/** Laravel's date_format:Y-m-d: exactly that shape, and a real day. */
const isDay = (value: unknown) => {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
};

/** Laravel's `url` rule, as far as a statement needs it: an absolute http(s) URL. */
const isUrl = (value: unknown) => {
  try {
    return ['http:', 'https:'].includes(new URL(String(value)).protocol);
  } catch {
    return false;
  }
};

/** The problems the database would answer for `s` (422 with these fields); empty when it takes it. */
export const transparencyDatabaseProblems = (s: Statement): string[] => {
  const problems: string[] = [];
  const fail = (field: string, rule: string) => problems.push(`${field}: ${rule}`);
  const inList = (field: string, list: readonly string[], nullable = false) => {
    const value = s[field];
    if (value === undefined || (nullable && value === null)) return;
    if (typeof value !== 'string' || !list.includes(value)) fail(field, 'in');
  };
  const max = (field: string, n: number) => {
    if (present(s[field]) && length(s[field]) > n) fail(field, `max:${n}`);
  };
  const required = (field: string) => {
    if (!present(s[field])) fail(field, 'required');
  };

  // One of the four kinds of decision (required_without_all).
  const decisions = ['decision_visibility', 'decision_monetary', 'decision_provision', 'decision_account'];
  if (!decisions.some((field) => present(s[field]))) fail('decision_provision', 'required_without_all');
  inList('decision_provision', DECISION_PROVISIONS, true);
  inList('decision_account', DECISION_ACCOUNTS, true);

  required('decision_ground');
  inList('decision_ground', DECISION_GROUNDS);
  if (present(s.decision_ground_reference_url)) {
    if (!isUrl(s.decision_ground_reference_url)) fail('decision_ground_reference_url', 'url');
    max('decision_ground_reference_url', 500);
  }
  if (s.decision_ground === 'DECISION_GROUND_ILLEGAL_CONTENT') {
    required('illegal_content_legal_ground');
    required('illegal_content_explanation');
    max('illegal_content_legal_ground', 500);
    max('illegal_content_explanation', 2000);
  }
  if (s.decision_ground === 'DECISION_GROUND_INCOMPATIBLE_CONTENT') {
    required('incompatible_content_ground');
    required('incompatible_content_explanation');
    max('incompatible_content_ground', 500);
    max('incompatible_content_explanation', 2000);
    inList('incompatible_content_illegal', INCOMPATIBLE_CONTENT_ILLEGALS);
  }

  const types = s.content_type;
  if (!Array.isArray(types) || types.length === 0) fail('content_type', 'required|array');
  else if (!types.every((t) => CONTENT_TYPES.includes(t))) fail('content_type', 'in');
  if (Array.isArray(types) && types.includes('CONTENT_TYPE_OTHER')) required('content_type_other');
  max('content_type_other', 500);

  required('category');
  inList('category', STATEMENT_CATEGORIES);

  const scope = s.territorial_scope;
  if (scope !== undefined && scope !== null) {
    if (!Array.isArray(scope)) fail('territorial_scope', 'array');
    else if (!scope.every((c) => EUROPEAN_COUNTRY_CODES.includes(c))) fail('territorial_scope', 'in');
  }

  const dated = (field: string, after: string, needed: boolean) => {
    const value = s[field];
    if (!present(value)) {
      if (needed) fail(field, 'required');
      return;
    }
    if (!isDay(value)) fail(field, 'date_format:Y-m-d');
    else if (String(value) < after || String(value) > '2038-01-01') fail(field, 'range');
  };
  dated('content_date', '2000-01-01', true);
  dated('application_date', '2020-01-01', true);
  for (const field of [
    'end_date_account_restriction',
    'end_date_monetary_restriction',
    'end_date_service_restriction',
    'end_date_visibility_restriction',
  ])
    dated(field, '0000-00-00', false);

  required('decision_facts');
  max('decision_facts', 5000);
  required('source_type');
  inList('source_type', SOURCE_TYPES);
  max('source_identity', 500);
  required('automated_detection');
  inList('automated_detection', AUTOMATED_DETECTIONS);
  required('automated_decision');
  inList('automated_decision', AUTOMATED_DECISIONS);
  required('puid');
  max('puid', 500);
  if (present(s.puid) && !/^[a-zA-Z0-9-_]+$/.test(String(s.puid))) fail('puid', 'regex');
  return problems;
};
