/**
 * The statement of reasons every ban carries (Digital Services Act, Art. 17): the ground (a clause
 * of the publisher's terms, or a law), the facts the player may read, whether automated means
 * detected the conduct or decided the ban, where the ban came from, where it applies and the
 * category of what it restricts. The vocabularies follow the Commission's DSA Transparency
 * Database (digital-services-act/transparency-database, app/Models/Statement.php), so each ban maps
 * onto one of its statements (docs/player-rights.md); the names here are ours, in our style.
 * The API's schemas (lib/model/requests.ts), the ban's record and the console all read this.
 */

/** `terms`: incompatible with the publisher's terms; `illegal`: illegal content under a law. */
export const statementGrounds = ['terms', 'illegal'] as const;
export type StatementGround = (typeof statementGrounds)[number];

/** Who decided: `fully` by automated means, `partially`, or `not` (a person). */
export const automatedDecisions = ['fully', 'partially', 'not'] as const;
export type AutomatedDecision = (typeof automatedDecisions)[number];

/** Where the ban came from: the publisher's own initiative, an Art. 16 notice, a trusted flagger, another notification. */
export const statementSources = [
  'own_initiative',
  'notice',
  'trusted_flagger',
  'other_notification',
] as const;
export type StatementSource = (typeof statementSources)[number];

/** The Transparency Database's categories (STATEMENT_CATEGORY_*), in lower case. */
export const statementCategories = [
  'animal_welfare',
  'consumer_information',
  'cyber_violence',
  'cyber_violence_against_women',
  'data_protection_and_privacy_violations',
  'illegal_or_harmful_speech',
  'intellectual_property_infringements',
  'negative_effects_on_civic_discourse_or_elections',
  'not_specified_notice',
  'other_violation_tc',
  'protection_of_minors',
  'risk_for_public_security',
  'scams_and_fraud',
  'self_harm',
  'unsafe_and_prohibited_products',
  'violence',
] as const;
export type StatementCategory = (typeof statementCategories)[number];

/** The European Economic Area's countries (ISO 3166-1 alpha-2), where the DSA applies. */
export const EEA_COUNTRIES = [
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
] as const;
export type EeaCountry = (typeof EEA_COUNTRIES)[number];

/** Lengths, as the Transparency Database takes them. */
export const STATEMENT_GROUND_MAX = 500;
export const STATEMENT_EXPLANATION_MAX = 2000;
export const STATEMENT_FACTS_MAX = 5000;
export const STATEMENT_URL_MAX = 500;

/** Where the player reads a clause: an https URL, as the API and the console's form check it. */
export const STATEMENT_URL_PATTERN = new RegExp(`^https://[\\x21-\\x7e]{1,${STATEMENT_URL_MAX - 8}}$`);
export const STATEMENT_URL_RULE = `must be an https URL of at most ${STATEMENT_URL_MAX} characters`;

/** A statement as every ban answers it: each field set (those of the other ground null). */
export interface Statement {
  ground: StatementGround;
  /** `terms`: the clause relied on (e.g. "Code of conduct, 4.2: no cheat software"). */
  terms_clause: string | null;
  /** `terms`: where the player reads that clause (https). */
  terms_url: string | null;
  /** `illegal`: the law relied on. */
  legal_ground: string | null;
  /** `illegal`: why the conduct is illegal on that ground. */
  illegal_explanation: string | null;
  /** The facts and circumstances relied on, written for the player. */
  facts: string;
  automated_detection: boolean;
  automated_decision: AutomatedDecision;
  source: StatementSource;
  /** Where the restriction applies, as EEA countries (a device ban: every one). */
  territorial_scope: EeaCountry[];
  category: StatementCategory;
}

/** The fields of a statement, in the order they are answered. */
export const statementFields = [
  'ground',
  'terms_clause',
  'terms_url',
  'legal_ground',
  'illegal_explanation',
  'facts',
  'automated_detection',
  'automated_decision',
  'source',
  'territorial_scope',
  'category',
] as const satisfies ReadonlyArray<keyof Statement>;

/** What a create, or a catalogue reason, may say of it: any of its fields. */
export type StatementInput = Partial<Statement>;

/** What a statement is made from beside what was given: the ban and who made it. */
export interface StatementContext {
  ban_type: 'cheat' | 'social';
  reason_code: string;
  /** The catalogue reason's label, when the code is in the catalogue. */
  reason_label?: string | undefined;
  player_message?: string | undefined;
  /** A key is a program (a bot, a game server); a person decides by hand. */
  actor: 'key' | 'person';
}

const defaultFacts = ({ ban_type, reason_code, reason_label }: StatementContext) =>
  `This device received a ${ban_type} ban for ${reason_label ?? reason_code}.`;

/**
 * The statement of a ban: what the create gave, over the catalogue reason's defaults, over ours.
 * Ours say truthfully what the service knows: a key's ban detected and decided by automated means,
 * a person's by hand; the publisher's own initiative; every EEA country (a device is banned
 * wherever it plays); a violation of the terms, the clause being the reason.
 */
export const resolveStatement = (
  given: StatementInput | undefined,
  catalogue: StatementInput | undefined,
  context: StatementContext,
): Statement => {
  const merged = { ...catalogue, ...given };
  const ground = merged.ground ?? 'terms';
  const automated = context.actor === 'key';
  return {
    ground,
    terms_clause:
      ground === 'terms' ? (merged.terms_clause ?? context.reason_label ?? context.reason_code) : null,
    terms_url: ground === 'terms' ? (merged.terms_url ?? null) : null,
    legal_ground: ground === 'illegal' ? (merged.legal_ground ?? null) : null,
    illegal_explanation: ground === 'illegal' ? (merged.illegal_explanation ?? null) : null,
    facts: merged.facts ?? context.player_message ?? defaultFacts(context),
    automated_detection: merged.automated_detection ?? automated,
    automated_decision: merged.automated_decision ?? (automated ? 'fully' : 'not'),
    source: merged.source ?? 'own_initiative',
    territorial_scope: merged.territorial_scope ?? [...EEA_COUNTRIES],
    category: merged.category ?? 'other_violation_tc',
  };
};

/** What an `illegal` statement must name, as the Transparency Database requires it. */
export const missingForGround = (statement: Statement): Array<'legal_ground' | 'illegal_explanation'> =>
  statement.ground === 'illegal'
    ? (['legal_ground', 'illegal_explanation'] as const).filter((field) => statement[field] === null)
    : [];

/** The fields of the other ground, given where they cannot apply. */
export const otherGroundFields = (given: StatementInput, ground: StatementGround): string[] =>
  (ground === 'terms'
    ? (['legal_ground', 'illegal_explanation'] as const)
    : (['terms_clause', 'terms_url'] as const)
  ).filter((field) => given[field] !== undefined);
