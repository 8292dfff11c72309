import { encode } from 'fast-png';

/** Decoded pixels as pdfjs hands them over (its ImageKind: 1 = 1-bit grey, 2 = RGB, 3 = RGBA). */
export interface RawImage {
  width: number;
  height: number;
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
}

/** 8-bit pixels, `channels` per pixel, row after row. */
interface Pixels {
  width: number;
  height: number;
  channels: number;
  data: Uint8Array;
}

/** 1-bit rows, each padded to a whole byte, as 8-bit grey. */
function expandBits({ width, height, data }: RawImage): Uint8Array {
  const out = new Uint8Array(width * height);
  const stride = Math.ceil(width / 8);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      out[y * width + x] = (data[y * stride + (x >> 3)]! >> (7 - (x & 7))) & 1 ? 255 : 0;
    }
  }
  return out;
}

/**
 * The image scaled down (each output pixel the mean of the source pixels it covers) so that its
 * longer side is `maxSide`; an image within it is returned as it is.
 */
function fitWithin(image: Pixels, maxSide: number): Pixels {
  const { width, height, channels, data } = image;
  const scale = maxSide / Math.max(width, height);
  if (scale >= 1) return image;
  const w = Math.max(1, Math.round(width * scale));
  const h = Math.max(1, Math.round(height * scale));
  const out = new Uint8Array(w * h * channels);
  const sums = new Float64Array(channels);
  for (let y = 0; y < h; y++) {
    const y0 = Math.floor((y * height) / h);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * height) / h));
    for (let x = 0; x < w; x++) {
      const x0 = Math.floor((x * width) / w);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * width) / w));
      sums.fill(0);
      for (let sy = y0; sy < y1; sy++) {
        for (let sx = x0; sx < x1; sx++) {
          const at = (sy * width + sx) * channels;
          for (let c = 0; c < channels; c++) sums[c]! += data[at + c]!;
        }
      }
      const count = (y1 - y0) * (x1 - x0);
      const to = (y * w + x) * channels;
      for (let c = 0; c < channels; c++) out[to + c] = Math.round(sums[c]! / count);
    }
  }
  return { width: w, height: h, channels, data: out };
}

/**
 * The image as PNG bytes with its size, scaled down to `maxSide` pixels on its longer side, or
 * undefined for a pixel layout this does not know.
 */
export function encodePng(
  image: RawImage,
  maxSide = Infinity,
): { bytes: Uint8Array; width: number; height: number } | undefined {
  const { width, height } = image;
  const channels = image.kind === 1 ? 1 : image.kind === 2 ? 3 : image.kind === 3 ? 4 : 0;
  if (channels === 0) return undefined;
  const data =
    image.kind === 1
      ? expandBits(image)
      : new Uint8Array(image.data.buffer, image.data.byteOffset, width * height * channels);
  if (data.length < width * height * channels) return undefined;
  const fitted = fitWithin({ width, height, channels, data }, maxSide);
  return {
    bytes: encode({ width: fitted.width, height: fitted.height, data: fitted.data, channels, depth: 8 }),
    width: fitted.width,
    height: fitted.height,
  };
}
