import { describe, expect, it } from '@jest/globals';
import { artifactV1, type ContractError, type ContractIssue, createToolCodec, toolCatalogue } from '@quarry/contracts';
import { QuarryError } from '@quarry/grpc';
import { batchItem } from '../src/core/batch-items.js';

// A store_research_batch item becomes its StoreResearchRequest through ts-proto's fromJSON after
// store_research's schema check. It used to be encoded by the tool codec (protobuf-es) and
// decoded again (ts-proto); that path stays here as the oracle: every item gives the same
// request, every refusal the same message.

const codec = createToolCodec(toolCatalogue.find((t) => t.name === 'store_research')!);
const throughBytes = (item: unknown) => artifactV1.StoreResearchRequest.decode(codec.encodeRequest(item));

/** Items as the service receives them: decoded from a StoreResearchBatchRequest's wire bytes. */
function received(items: Record<string, unknown>[]): { [key: string]: unknown }[] {
  const bytes = artifactV1.StoreResearchBatchRequest.encode({ artifacts: items }).finish();
  return artifactV1.StoreResearchBatchRequest.decode(bytes).artifacts;
}

const minimal = { artifactType: 'finding', title: 't', content: {} };
const VALID: Record<string, unknown>[] = [
  minimal,
  {
    artifactType: 'source_list',
    title: 'Every field',
    content: { sources: [{ url: 'https://example.org', rank: 1 }], note: null, ok: true },
    contentText: 'readable text é 😀',
    confidence: 0.25,
    planId: '0b0e7f0e-4f7b-4c1e-9d6a-2f2f1f6c8a11',
    stepId: '6f1c2b7a-1d5e-4b8e-8a53-3a9e0f3c1d22',
    tags: ['x', 'y'],
  },
  { ...minimal, confidence: 0 },
  { ...minimal, confidence: 1 },
  { ...minimal, confidence: -0 },
  { ...minimal, tags: [] },
  { ...minimal, content: { a: Number.NaN, b: Infinity, c: -Infinity, d: -0, e: 1e300, f: 2 ** 53 + 2 } },
  { ...minimal, content: { deep: [[[{ x: [null, false, '', 0] }]]], '': 'empty key', 'ü ': 'spaced' } },
  ...['analysis', 'synthesis', 'comparison', 'summary'].map((artifactType) => ({ ...minimal, artifactType })),
];

const INVALID: Record<string, unknown>[] = [
  { ...minimal, artifactType: 'poem' },
  { ...minimal, artifactType: 'unspecified' },
  { title: 'no content', artifactType: 'finding' },
  { ...minimal, title: '' },
  { ...minimal, confidence: 2 },
  { ...minimal, confidence: Number.NaN },
  { ...minimal, planId: 'not-a-uuid' },
  { ...minimal, tags: ['a', 'a'] },
  { ...minimal, colour: 'blue' },
  { ...minimal, contentText: 'x'.repeat(1024 * 1024 + 1) },
  { ...minimal, content: 'text' },
  { ...minimal, content: JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`) as object },
];

function refusal(item: unknown): string {
  try {
    batchItem(item, 3);
  } catch (error) {
    expect(error).toBeInstanceOf(QuarryError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT' });
    return (error as QuarryError).message;
  }
  throw new Error('the item was accepted');
}

describe('batchItem', () => {
  it('gives the request the codec encoding and ts-proto decoding gave, for every kind of valid item', () => {
    for (const item of received(VALID)) expect(batchItem(item, 0)).toEqual(throughBytes(item));
  });

  it('refuses each invalid item with the message the codec gave, named by its place in the batch', () => {
    // As sent, not through the wire: an item nested too deeply to send is refused before it is.
    for (const item of INVALID) {
      let issues: readonly ContractIssue[] = [];
      try {
        throughBytes(item);
      } catch (error) {
        issues = (error as ContractError).issues;
      }
      expect(issues).not.toEqual([]);
      const message = refusal(item);
      expect(message).toMatch(/^`artifacts\[3\]` is not valid store_research arguments: /);
      expect(message).toContain(issues.map((i) => `${i.path || 'the item'} ${i.problem}`).join('; '));
    }
  });
});
