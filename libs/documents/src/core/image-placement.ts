/** A PDF transformation matrix [a, b, c, d, e, f]. */
export type Matrix = readonly [number, number, number, number, number, number];

const IDENTITY: Matrix = [1, 0, 0, 1, 0, 0];

/** `m` applied after `ctm` (PDF's `cm`: the new matrix is m × ctm). */
function concat(m: Matrix, ctm: Matrix): Matrix {
  return [
    m[0] * ctm[0] + m[1] * ctm[2],
    m[0] * ctm[1] + m[1] * ctm[3],
    m[2] * ctm[0] + m[3] * ctm[2],
    m[2] * ctm[1] + m[3] * ctm[3],
    m[4] * ctm[0] + m[5] * ctm[2] + ctm[4],
    m[4] * ctm[1] + m[5] * ctm[3] + ctm[5],
  ];
}

/** The operator codes of the graphics-state operations that move an image (from pdfjs's OPS). */
export interface PlacementOps {
  save: number;
  restore: number;
  transform: number;
  formBegin: number;
  formEnd: number;
  image: number;
}

/** An image painted on a page: its object id and its box (the unit square under the CTM). */
export interface PlacedImage {
  id: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/**
 * Follow the current transformation matrix through a page's operator list and return where each
 * image XObject is painted. Form XObjects save the state and apply their own matrix.
 */
export function placeImages(
  fnArray: readonly number[],
  argsArray: readonly unknown[],
  ops: PlacementOps,
): PlacedImage[] {
  const stack: Matrix[] = [];
  let ctm = IDENTITY;
  const placed: PlacedImage[] = [];
  fnArray.forEach((fn, k) => {
    const args = argsArray[k] as unknown[] | null;
    if (fn === ops.save) stack.push(ctm);
    else if (fn === ops.restore || fn === ops.formEnd) ctm = stack.pop() ?? IDENTITY;
    else if (fn === ops.transform && args) ctm = concat(args as unknown as Matrix, ctm);
    else if (fn === ops.formBegin) {
      stack.push(ctm);
      const matrix = args?.[0];
      if (Array.isArray(matrix) && matrix.length === 6) ctm = concat(matrix as unknown as Matrix, ctm);
    } else if (fn === ops.image && args && typeof args[0] === 'string') {
      const xs = [ctm[4], ctm[4] + ctm[0], ctm[4] + ctm[2], ctm[4] + ctm[0] + ctm[2]];
      const ys = [ctm[5], ctm[5] + ctm[1], ctm[5] + ctm[3], ctm[5] + ctm[1] + ctm[3]];
      placed.push({
        id: args[0],
        left: Math.min(...xs),
        right: Math.max(...xs),
        top: Math.max(...ys),
        bottom: Math.min(...ys),
      });
    }
  });
  return placed;
}
