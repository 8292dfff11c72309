import { DocumentError, type DocumentErrorCode } from '@quarry/documents';
import type { QuarryError } from '@quarry/grpc';
import { artifactErrors } from '../errors.js';

type Refusal = (p: { fileName: string; reason: string }) => QuarryError;

/** Each conversion failure's code in the artifact store's catalogue. */
const REFUSALS: Readonly<Record<DocumentErrorCode, Refusal>> = {
  UNSUPPORTED_FORMAT: artifactErrors.DOCUMENT_UNSUPPORTED_FORMAT,
  ENCRYPTED: artifactErrors.DOCUMENT_ENCRYPTED,
  CORRUPT: artifactErrors.DOCUMENT_CORRUPT,
  NO_TEXT_LAYER: artifactErrors.DOCUMENT_NO_TEXT_LAYER,
  TOO_LARGE: artifactErrors.DOCUMENT_TOO_LARGE,
  TOO_MANY_UNITS: artifactErrors.DOCUMENT_TOO_MANY_UNITS,
  ARCHIVE_BOMB: artifactErrors.DOCUMENT_ARCHIVE_BOMB,
  IMAGE_TOO_LARGE: artifactErrors.DOCUMENT_IMAGE_TOO_LARGE,
  TIMEOUT: artifactErrors.DOCUMENT_TIMEOUT,
  OUT_OF_MEMORY: artifactErrors.DOCUMENT_OUT_OF_MEMORY,
};

/**
 * A conversion failure as the tool error the caller sees (the converter's message, written for
 * the person who sent the file, is its reason); anything else is not a verdict on the file and
 * is rethrown as it is.
 */
export function conversionRefusal(error: unknown, fileName: string): unknown {
  if (!(error instanceof DocumentError)) return error;
  return REFUSALS[error.code]({ fileName, reason: error.message });
}

/**
 * A fetched document's conversion failure: bytes of no format Quarry reads are URL_UNSUPPORTED_CONTENT
 * (the URL's server decides what it sends, whatever its Content-Type said); the other failures
 * are the file's, named by its URL.
 */
export function fetchedConversionRefusal(error: unknown, url: string): unknown {
  if (error instanceof DocumentError && error.code === 'UNSUPPORTED_FORMAT')
    return artifactErrors.URL_UNSUPPORTED_CONTENT({ url, reason: error.message });
  return conversionRefusal(error, url);
}
