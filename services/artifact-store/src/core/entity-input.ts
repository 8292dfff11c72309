import type { artifactV1 } from '@quarry/contracts';
import { artifactErrors } from '../errors.js';
import { displayName, normaliseName } from './entity-names.js';

/**
 * upsert_entities' arguments, checked and normalised before any I/O. The limits are the
 * service's own (the input schema leaves them out for the catalogue's token budget, see the
 * proto), so a direct gRPC call meets the same ones.
 */
export const ENTITY_LIMITS = {
  entities: 100,
  relations: 200,
  aliases: 20,
  attributes: 30,
  evidence: 10,
  nameChars: 300,
  typeChars: 60,
  valueChars: 1000,
  quoteChars: 1000,
} as const;

/** One entity to upsert: the inputs of one call that name the same entity are folded into one. */
export interface EntitySpec {
  name: string;
  type: string;
  /** Display forms of its other names, none normalising like the name or each other. */
  aliases: string[];
  /** Normalised name first, then the aliases'. */
  norms: string[];
  attributes: Record<string, string>;
}

export interface EvidenceSpec {
  artifactId: string;
  page: number | null;
  start: number | null;
  end: number | null;
  quote: string | null;
}

/** A relation end: an entity of this call (by its index in the specs), or else what should be an existing entity's id. */
export type RelationEnd = { spec: number } | { id: string };

export interface RelationSpec {
  from: RelationEnd;
  to: RelationEnd;
  type: string;
  evidence: EvidenceSpec[];
}

export interface UpsertPlan {
  specs: EntitySpec[];
  /** For each input entity, in order, the spec it was folded into. */
  specOf: number[];
  relations: RelationSpec[];
}

const invalid = (field: string, rule: string) => artifactErrors.INVALID_ARGUMENT({ field, rule });

function text(field: string, value: string, max: number): string {
  const shown = displayName(value);
  if (shown.length < 1 || shown.length > max) throw invalid(field, `must be 1 to ${max} characters (not only spaces)`);
  return shown;
}

/** A kind (entity or relation type): compared and stored normalised. */
export function kindOf(field: string, value: string): string {
  return normaliseName(text(field, value, ENTITY_LIMITS.typeChars));
}

function entitySpec(input: artifactV1.EntityInput, at: string): EntitySpec {
  const name = text(`${at}.name`, input.name, ENTITY_LIMITS.nameChars);
  if (input.aliases.length > ENTITY_LIMITS.aliases)
    throw invalid(`${at}.aliases`, `may hold at most ${ENTITY_LIMITS.aliases} names`);
  const attributes = Object.entries(input.attributes);
  if (attributes.length > ENTITY_LIMITS.attributes)
    throw invalid(`${at}.attributes`, `may hold at most ${ENTITY_LIMITS.attributes} entries`);
  for (const [key, value] of attributes) {
    if (key.length < 1 || key.length > ENTITY_LIMITS.typeChars)
      throw invalid(`${at}.attributes`, `must have keys of 1 to ${ENTITY_LIMITS.typeChars} characters`);
    if (value.length > ENTITY_LIMITS.valueChars)
      throw invalid(`${at}.attributes.${key}`, `must be at most ${ENTITY_LIMITS.valueChars} characters`);
  }
  const spec: EntitySpec = {
    name,
    type: kindOf(`${at}.type`, input.type),
    aliases: [],
    norms: [normaliseName(name)],
    attributes: Object.fromEntries(attributes),
  };
  addAliases(
    spec,
    input.aliases.map((alias, i) => text(`${at}.aliases[${i}]`, alias, ENTITY_LIMITS.nameChars)),
  );
  return spec;
}

/** Adds the names whose normal form the entity does not have yet, as aliases. */
function addAliases(spec: EntitySpec, names: readonly string[]): void {
  for (const name of names) {
    const norm = normaliseName(name);
    if (spec.norms.includes(norm)) continue;
    spec.norms.push(norm);
    spec.aliases.push(name);
  }
}

function evidenceSpec(input: artifactV1.EvidenceInput, at: string): EvidenceSpec {
  if (input.page !== undefined && input.page < 1) throw invalid(`${at}.page`, 'must be 1 or more');
  if (input.start !== undefined && input.end !== undefined && input.end <= input.start)
    throw invalid(`${at}.end`, 'must be after start');
  if (input.quote !== undefined && (input.quote.length < 1 || input.quote.length > ENTITY_LIMITS.quoteChars))
    throw invalid(`${at}.quote`, `must be 1 to ${ENTITY_LIMITS.quoteChars} characters`);
  return {
    artifactId: input.artifactId.toLowerCase(),
    page: input.page ?? null,
    start: input.start ?? null,
    end: input.end ?? null,
    quote: input.quote ?? null,
  };
}

/**
 * A relation end: the entity of this call whose name or alias it is (of any type; a name two
 * entities of different types share must be given by id), else an entity id (the handler looks
 * it up: anything that is not one of the graph's entities is ENTITY_NOT_FOUND).
 */
function relationEnd(value: string, specs: readonly EntitySpec[], field: string): RelationEnd {
  const norm = normaliseName(value);
  const matches = specs.flatMap((spec, i) => (spec.norms.includes(norm) ? [i] : []));
  if (matches.length > 1)
    throw invalid(field, `"${value}" names entities of several types in \`entities\`; give the entity's ID instead`);
  if (matches.length === 1) return { spec: matches[0]! };
  return { id: value };
}

/** The whole call, checked: entities folded by type and normalised names, relations resolved within the call. */
export function upsertPlan(req: artifactV1.UpsertEntitiesRequest): UpsertPlan {
  if (req.entities.length > ENTITY_LIMITS.entities)
    throw invalid('entities', `may hold at most ${ENTITY_LIMITS.entities} entities`);
  if (req.relations.length > ENTITY_LIMITS.relations)
    throw invalid('relations', `may hold at most ${ENTITY_LIMITS.relations} relations`);
  if (req.entities.length === 0 && req.relations.length === 0)
    throw invalid('entities', 'or relations must hold something to upsert');
  const specs: EntitySpec[] = [];
  const specOf = req.entities.map((input, i) => {
    const spec = entitySpec(input, `entities[${i}]`);
    const same = specs.findIndex((s) => s.type === spec.type && s.norms.some((n) => spec.norms.includes(n)));
    if (same < 0) return specs.push(spec) - 1;
    const into = specs[same]!;
    addAliases(into, [spec.name, ...spec.aliases]);
    into.attributes = { ...into.attributes, ...spec.attributes };
    return same;
  });
  const relations = req.relations.map((input, i): RelationSpec => {
    const at = `relations[${i}]`;
    if (input.evidence.length === 0) throw artifactErrors.EVIDENCE_REQUIRED({ relation: describe(input) });
    if (input.evidence.length > ENTITY_LIMITS.evidence)
      throw invalid(`${at}.evidence`, `may hold at most ${ENTITY_LIMITS.evidence} items`);
    return {
      from: relationEnd(input.from, specs, `${at}.from`),
      to: relationEnd(input.to, specs, `${at}.to`),
      type: kindOf(`${at}.type`, input.type),
      evidence: input.evidence.map((e, j) => evidenceSpec(e, `${at}.evidence[${j}]`)),
    };
  });
  return { specs, specOf, relations };
}

function describe(input: artifactV1.RelationInput): string {
  return `${input.from} —${input.type}→ ${input.to}`;
}
