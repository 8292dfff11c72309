import mammoth from 'mammoth';
import type { ConversionLimits } from '../conversion-limits.js';
import { isCaption } from '../core/caption.js';
import type { ConvertedDocument } from '../document.js';
import { figureSrc, htmlToMarkdown, parseFragment, sectionAt } from './html-markdown.js';
import { officeProperties } from './office-properties.js';
import { FigureCollector } from './office-figures.js';
import type { Archive } from './zip-archive.js';

/** The caption of an image: its own paragraph's text or the paragraph after or before it, if it reads "Figure N". */
function captionsOf(html: string, count: number): (string | undefined)[] {
  const document = parseFragment(html);
  return Array.from({ length: count }, (_, index) => {
    const img = document.querySelector(`img[src="${figureSrc(index)}"]`);
    const block = img?.closest('p, td, li') ?? img?.parentElement;
    const candidates = [block, block?.nextElementSibling, block?.previousElementSibling].map((el) =>
      (el?.textContent ?? '').replace(/\s+/g, ' ').trim(),
    );
    return candidates.find(isCaption);
  });
}

/**
 * A Word document through mammoth (its semantic HTML: headings, lists, tables, images) and then
 * Markdown, cut into sections at its top headings; embedded images become figures of the section
 * they sit in, captioned by a neighbouring "Figure N" paragraph.
 */
export async function convertDocx(
  archive: Archive,
  limits: Readonly<ConversionLimits>,
  warnings: string[],
): Promise<ConvertedDocument> {
  const images: Uint8Array[] = [];
  // mammoth reads with JSZip, which inflates without a bound: it is handed the parts already
  // inflated within the checked sizes and stored uncompressed.
  const { value: html } = await mammoth.convertToHtml(
    { buffer: Buffer.from(archive.stored()) },
    {
      convertImage: mammoth.images.imgElement(async (image) => {
        images.push(new Uint8Array(await image.readAsBuffer()));
        return { src: figureSrc(images.length - 1) };
      }),
    },
  );
  const properties = officeProperties(archive);
  const converted = htmlToMarkdown(html, properties.title, warnings);
  const figures = new FigureCollector(limits, 'section');
  const captions = captionsOf(html, images.length);
  images.forEach((bytes, index) => {
    const at = converted.text.indexOf(`(${figureSrc(index)})`);
    figures.add(bytes, sectionAt(converted, Math.max(at, 0)), captions[index]);
  });
  return {
    ...converted,
    format: 'docx',
    mediaType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    ...(properties.title ? { title: properties.title } : {}),
    ...(properties.author ? { author: properties.author } : {}),
    ...(properties.publishedAt ? { publishedAt: properties.publishedAt } : {}),
    ...(properties.language ? { language: properties.language } : {}),
    metadata: properties.metadata,
    figures: figures.figures,
    warnings: [...converted.warnings, ...figures.warnings()],
  };
}
