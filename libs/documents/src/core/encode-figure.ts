import { encode } from 'fast-png';

/** Decoded pixels as pdfjs hands them over (its ImageKind: 1 = 1-bit grey, 2 = RGB, 3 = RGBA). */
export interface RawImage {
  width: number;
  height: number;
  kind: number;
  data: Uint8Array | Uint8ClampedArray;
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

/** The image as PNG bytes, or undefined for a pixel layout this does not know. */
export function encodePng(image: RawImage): Uint8Array | undefined {
  const { width, height } = image;
  const channels = image.kind === 1 ? 1 : image.kind === 2 ? 3 : image.kind === 3 ? 4 : 0;
  if (channels === 0) return undefined;
  const data =
    image.kind === 1
      ? expandBits(image)
      : new Uint8Array(image.data.buffer, image.data.byteOffset, width * height * channels);
  if (data.length < width * height * channels) return undefined;
  return encode({ width, height, data, channels, depth: 8 });
}
