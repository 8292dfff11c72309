import { DocumentError } from '../document-error.js';

export type OfficeKind = 'docx' | 'pptx' | 'xlsx';

/** Which Office format a zip holds, from its main part (the name says nothing: a .zip may be a .docx). */
export function officeKind(entryNames: readonly string[]): OfficeKind {
  const names = new Set(entryNames);
  if (!names.has('[Content_Types].xml')) {
    throw new DocumentError(
      'UNSUPPORTED_FORMAT',
      'the document is a zip archive, not a Word, PowerPoint or Excel file',
    );
  }
  if (names.has('word/document.xml')) return 'docx';
  if (names.has('ppt/presentation.xml')) return 'pptx';
  if (names.has('xl/workbook.xml')) return 'xlsx';
  throw new DocumentError(
    'UNSUPPORTED_FORMAT',
    'the document is an Open Packaging file other than a Word, PowerPoint or Excel document',
  );
}
