import { describe, expect, it } from '@jest/globals';
import { QuarryError } from '@quarry/grpc';
import { jsonBody, MAX_BINARY_BYTES, MAX_TEXT_BYTES, outputBody, textBody } from '../src/core/bodies.js';
import { extractionText, extractionTitle, textOf, titleFrom } from '../src/core/indexed-text.js';

// The pure rules behind the artifact tools: what a research output's content must be for its
// media type, the size limits, and what text gets indexed.

const codeOf = (fn: () => unknown): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(QuarryError);
    return (error as QuarryError).code;
  }
};

describe('outputBody', () => {
  it('keeps text forms as text, measured in UTF-8 bytes', () => {
    expect(outputBody('markdown', '# Héllo')).toEqual({ text: '# Héllo', size: 8 });
    expect(outputBody('conversation', 'x'.repeat(MAX_TEXT_BYTES))).toMatchObject({ size: MAX_TEXT_BYTES });
    expect(codeOf(() => outputBody('html', 'x'.repeat(MAX_TEXT_BYTES + 1)))).toBe('CONTENT_TOO_LARGE');
    expect(codeOf(() => outputBody('html', 'é'.repeat(MAX_TEXT_BYTES / 2 + 1)))).toBe('CONTENT_TOO_LARGE');
  });

  it('decodes strict base64 for binary documents, line breaks allowed', () => {
    const bytes = Buffer.from([0x50, 0x4b, 3, 4, 0, 255]);
    expect(outputBody('word', bytes.toString('base64'))).toEqual({ bytes, size: 6 });
    const wrapped = Buffer.alloc(100, 1)
      .toString('base64')
      .replace(/(.{76})/g, '$1\r\n');
    expect(outputBody('excel', wrapped)).toMatchObject({ size: 100 });
  });

  it.each([
    ['characters outside the alphabet', 'not base64!'],
    ['a missing padding character', 'QUJDRA='],
    ['a partial quantum', 'QUJ'],
    ['the URL-safe alphabet', '-_-_'],
    ['padding in the middle', 'QQ==QUJD'],
    ['nothing but a line break', '\n'],
  ])('refuses %s', (_what, content) => {
    expect(codeOf(() => outputBody('powerpoint', content))).toBe('INVALID_BASE64');
  });

  it('allows 2 MiB of decoded bytes and refuses one more', () => {
    expect(outputBody('word', Buffer.alloc(MAX_BINARY_BYTES).toString('base64'))).toMatchObject({
      size: MAX_BINARY_BYTES,
    });
    expect(codeOf(() => outputBody('word', Buffer.alloc(MAX_BINARY_BYTES + 1).toString('base64')))).toBe(
      'CONTENT_TOO_LARGE',
    );
  });
});

describe('jsonBody and textBody', () => {
  it('serialize and measure JSON, refusing more than 1 MiB', () => {
    expect(jsonBody('content', { a: [1, 'b'] })).toBe('{"a":[1,"b"]}');
    expect(codeOf(() => jsonBody('report', { t: 'x'.repeat(MAX_TEXT_BYTES) }))).toBe('CONTENT_TOO_LARGE');
    expect(codeOf(() => textBody('contentText', 'x'.repeat(MAX_TEXT_BYTES + 1)))).toBe('CONTENT_TOO_LARGE');
    expect(textBody('contentText', 'ok')).toBe('ok');
  });
});

describe('textOf', () => {
  it('collects the non-blank string values of a JSON value, depth first, one per line', () => {
    expect(textOf({ title: ' A ', n: 3, nested: { list: ['b', '', { c: 'c' }], flag: true }, none: null })).toBe(
      'A\nb\nc',
    );
    expect(textOf({})).toBe('');
  });
});

describe('titleFrom', () => {
  it('takes the first line, cut at a word with an ellipsis when long', () => {
    expect(titleFrom('  Survey capacity\nsecond line')).toBe('Survey capacity');
    const long = titleFrom('word '.repeat(100), 50);
    expect(long.length).toBeLessThanOrEqual(50);
    expect(long.endsWith('word…')).toBe(true);
  });
});

describe('extractionText', () => {
  it('writes one `path: value` line per leaf value, depth first, with JavaScript-style paths', () => {
    const data = {
      title: 'Attention Is All You Need',
      year: 2017,
      peerReviewed: true,
      authors: [{ name: 'Ashish Vaswani', affiliation: { org: 'Google Brain' } }, { name: 'Noam Shazeer' }],
      keywords: ['transformer', 'attention'],
    };
    expect(extractionText(data)).toBe(
      [
        'title: Attention Is All You Need',
        'year: 2017',
        'peerReviewed: true',
        'authors[0].name: Ashish Vaswani',
        'authors[0].affiliation.org: Google Brain',
        'authors[1].name: Noam Shazeer',
        'keywords[0]: transformer',
        'keywords[1]: attention',
      ].join('\n'),
    );
  });

  it('keeps each value on its line and leaves out what says nothing', () => {
    expect(
      extractionText({
        abstract: '  Two\nlines\t here ',
        venue: null,
        notes: '  ',
        tags: [],
        extra: {},
        zero: 0,
        no: false,
      }),
    ).toBe('abstract: Two lines here\nzero: 0\nno: false');
    expect(extractionText({})).toBe('');
  });

  it('quotes keys that are not identifiers', () => {
    expect(extractionText({ 'first name': 'Ada', list: [{ 'e-mail': 'ada@example.org' }], $ok: 1, _x: 2 })).toBe(
      '["first name"]: Ada\nlist[0]["e-mail"]: ada@example.org\n$ok: 1\n_x: 2',
    );
  });

  it('renders a bare value or a top-level list too', () => {
    expect(extractionText('just text')).toBe('just text');
    expect(extractionText([{ a: 1 }, 'b'])).toBe('[0].a: 1\n[1]: b');
  });
});

describe('extractionTitle', () => {
  const hash = '0123456789abcdef'.repeat(4);

  it("names the schema's title and the first three values", () => {
    const data = { title: 'Attention Is All You Need', year: 2017, authors: ['Ashish Vaswani', 'Noam Shazeer'] };
    expect(extractionTitle({ title: 'Paper', type: 'object' }, data, hash)).toBe(
      'Extraction (Paper): Attention Is All You Need · 2017 · Ashish Vaswani',
    );
    expect(extractionTitle({ type: 'object' }, { price: '$12' }, hash)).toBe('Extraction: $12');
  });

  it('falls back to the start of the schema hash when nothing was extracted', () => {
    expect(extractionTitle({ type: 'object', title: 7 }, {}, hash)).toBe('Extraction 0123456789ab');
    expect(extractionTitle({ title: ' Paper\nmetadata ' }, { none: null }, hash)).toBe(
      'Extraction (Paper metadata) 0123456789ab',
    );
  });

  it('stays on one line and within 200 characters', () => {
    const title = extractionTitle({ title: 'Paper' }, { abstract: 'word\n'.repeat(200) }, hash);
    expect(title.length).toBeLessThanOrEqual(200);
    expect(title).not.toContain('\n');
    expect(title.startsWith('Extraction (Paper): word word')).toBe(true);
  });
});
