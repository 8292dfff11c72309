import type { EntitySpec } from './entity-input.js';

/** An entity as stored. */
export interface StoredEntity {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  attributes: Record<string, string>;
}

/** What an upsert does to an entity it found: nothing, or new aliases and attributes. */
export interface EntityMerge {
  changed: boolean;
  aliases: string[];
  attributes: Record<string, string>;
  /** Normalised names the entity does not have yet (its new entity_names rows). */
  newNorms: string[];
  /** The attribute keys added or given another value. */
  changedKeys: string[];
}

/**
 * Merging keeps the first name and every known alias, adds the names it did not have yet as
 * aliases, and sets the attributes given (a key not given keeps its value): the same call twice
 * changes nothing the second time.
 */
export function mergeEntity(stored: StoredEntity, knownNorms: readonly string[], spec: EntitySpec): EntityMerge {
  const known = new Set(knownNorms);
  const aliases = [...stored.aliases];
  const newNorms: string[] = [];
  spec.norms.forEach((norm, i) => {
    if (known.has(norm)) return;
    known.add(norm);
    newNorms.push(norm);
    aliases.push(i === 0 ? spec.name : spec.aliases[i - 1]!);
  });
  const changedKeys = Object.entries(spec.attributes)
    .filter(([key, value]) => stored.attributes[key] !== value)
    .map(([key]) => key);
  return {
    changed: newNorms.length > 0 || changedKeys.length > 0,
    aliases,
    attributes: { ...stored.attributes, ...spec.attributes },
    newNorms,
    changedKeys,
  };
}
