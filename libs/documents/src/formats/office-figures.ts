import { imageSize } from 'image-size';
import type { ConversionLimits } from '../conversion-limits.js';
import { pagesPhrase } from '../core/page-ranges.js';
import type { DocumentFigure } from '../document.js';

const MEDIA_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  bmp: 'image/bmp',
  tiff: 'image/tiff',
  svg: 'image/svg+xml',
};
// Images smaller than this on both sides are bullets and icons, not figures.
const MIN_FIGURE_SIDE = 16;

/**
 * Collects an Office file's embedded images as figures, kept as their own bytes (PNG, JPEG, …;
 * vector EMF/WMF drawings are not images a client can show, and are left out), within the
 * figure-count and pixel limits, and says in warnings what it skipped.
 */
export class FigureCollector {
  readonly figures: DocumentFigure[] = [];
  private readonly tooLarge: number[] = [];
  private overCount = 0;

  constructor(
    private readonly limits: Readonly<ConversionLimits>,
    private readonly unitNoun: string,
  ) {}

  add(bytes: Uint8Array, unit: number, caption: string | undefined): void {
    let size: ReturnType<typeof imageSize>;
    try {
      size = imageSize(bytes);
    } catch {
      return;
    }
    const mediaType = MEDIA_TYPES[size.type ?? ''];
    if (!mediaType || !size.width || !size.height) return;
    if (size.width < MIN_FIGURE_SIDE && size.height < MIN_FIGURE_SIDE) return;
    if (size.width * size.height > this.limits.maxImagePixels) {
      this.tooLarge.push(unit);
      return;
    }
    if (this.figures.length >= this.limits.maxFigures) {
      this.overCount++;
      return;
    }
    this.figures.push({
      unit,
      ...(caption ? { caption } : {}),
      mediaType,
      bytes,
      width: size.width,
      height: size.height,
    });
  }

  warnings(): string[] {
    const warnings: string[] = [];
    if (this.tooLarge.length > 0) {
      warnings.push(
        `images over ${this.limits.maxImagePixels} pixels were skipped in ${pagesPhrase(this.tooLarge, this.unitNoun)}`,
      );
    }
    if (this.overCount > 0) {
      warnings.push(`${this.overCount} images past the first ${this.limits.maxFigures} were skipped`);
    }
    return warnings;
  }
}
