/** Text decoded from bytes, with the encoding it was read as. */
export interface DecodedText {
  text: string;
  /** 'windows-1252' when the bytes were not UTF-8 and nothing said what they are: a guess. */
  encoding: string;
}

// C0 controls other than tab, newline, form feed and carriage return: a few are tolerated (stray
// bytes happen), many mean the bytes are not text.
const isControl = (code: number) => code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d;
const MAX_CONTROL_SHARE = 0.01;

function plausible(text: string): boolean {
  if (text.includes('\u0000')) return false;
  let controls = 0;
  for (let i = 0; i < text.length; i++) if (isControl(text.charCodeAt(i))) controls++;
  return controls <= Math.max(2, text.length * MAX_CONTROL_SHARE);
}

/**
 * Read `bytes` as text: a byte-order mark decides; otherwise strict UTF-8; otherwise Windows-1252
 * (the usual encoding of older text and web pages). Binary data (NULs, many control bytes) is not
 * text: undefined.
 */
export function decodeText(bytes: Uint8Array): DecodedText | undefined {
  const bom = (a: number, b: number, c?: number) =>
    bytes[0] === a && bytes[1] === b && (c === undefined || bytes[2] === c);
  let decoded: DecodedText;
  if (bom(0xef, 0xbb, 0xbf)) decoded = { text: new TextDecoder('utf-8').decode(bytes.subarray(3)), encoding: 'utf-8' };
  else if (bom(0xff, 0xfe))
    decoded = { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  else if (bom(0xfe, 0xff))
    decoded = { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };
  else {
    try {
      decoded = { text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), encoding: 'utf-8' };
    } catch {
      decoded = { text: new TextDecoder('windows-1252').decode(bytes), encoding: 'windows-1252' };
    }
  }
  return plausible(decoded.text) ? decoded : undefined;
}

/**
 * An HTML page that is not UTF-8, read in the charset its `<meta>` declares (in the first 1024
 * bytes, as browsers look), when the runtime knows that charset; otherwise as `fallback` was.
 */
export function decodeDeclaredCharset(bytes: Uint8Array, fallback: DecodedText): DecodedText {
  if (fallback.encoding !== 'windows-1252') return fallback;
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  const label = /<meta[^>]+charset\s*=\s*["']?\s*([\w:.-]+)/i.exec(head)?.[1];
  if (!label) return fallback;
  try {
    const decoder = new TextDecoder(label);
    return { text: decoder.decode(bytes), encoding: decoder.encoding };
  } catch {
    return fallback;
  }
}
