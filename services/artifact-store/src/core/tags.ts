import { artifactErrors } from '../errors.js';

/** At most this many tags on one artifact (as store_research accepts). */
const MAX_TAGS = 50;
const MAX_TAG_LENGTH = 100;

function checkTags(field: string, tags: readonly string[]): void {
  for (const tag of tags) {
    if (tag.length < 1 || tag.length > MAX_TAG_LENGTH)
      throw artifactErrors.INVALID_ARGUMENT({ field, rule: `must hold tags of 1 to ${MAX_TAG_LENGTH} characters` });
  }
}

/**
 * An artifact's tags after adding `add` and removing `remove` (a tag in both is removed), in the
 * order they were first added; `changed` says whether anything differs, so a repeated call
 * writes nothing and emits no event.
 */
export function retag(
  current: readonly string[],
  add: readonly string[],
  remove: readonly string[],
): { tags: string[]; changed: boolean } {
  checkTags('add', add);
  checkTags('remove', remove);
  const removed = new Set(remove);
  const tags = [...new Set([...current, ...add])].filter((tag) => !removed.has(tag));
  if (tags.length > MAX_TAGS)
    throw artifactErrors.INVALID_ARGUMENT({ field: 'add', rule: `would give the artifact more than ${MAX_TAGS} tags` });
  const changed = tags.length !== current.length || tags.some((tag, i) => tag !== current[i]);
  return { tags, changed };
}
