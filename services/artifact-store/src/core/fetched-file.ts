/**
 * How a fetched document is named and hinted at before its bytes are read (pure): its file name
 * is the last segment of the URL it came from (else the host), its media type hint the
 * Content-Type the server sent without parameters. The format itself is read from the bytes.
 */

const MAX_FILE_NAME = 255;
const MAX_MEDIA_TYPE = 200;

export function fileNameOf(finalUrl: string): string {
  const url = new URL(finalUrl);
  const last = url.pathname.split('/').filter(Boolean).pop();
  let name = url.hostname;
  if (last) {
    try {
      name = decodeURIComponent(last);
    } catch {
      name = last;
    }
  }
  return name.trim().slice(0, MAX_FILE_NAME) || url.hostname;
}

export function mediaTypeHint(contentType: string | undefined): string | undefined {
  const bare = contentType?.split(';')[0]?.trim().toLowerCase();
  return bare && bare.length <= MAX_MEDIA_TYPE && /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(bare)
    ? bare
    : undefined;
}
