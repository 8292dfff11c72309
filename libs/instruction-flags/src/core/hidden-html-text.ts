import { parseHTML } from 'linkedom';

/**
 * Text an HTML page hides from its readers but not from a model that reads its source or its
 * converted text. Two kinds of hiding differ: styles that exist only to hide text from eyes
 * (zero font size, zero opacity, text coloured like its background or white on the default
 * page, off-screen positioning, a zero clip) are deceptive whatever they hold; display:none,
 * visibility:hidden and the hidden attribute are how menus, dialogs and tabs work, so their
 * text counts only when it speaks to a model. Inline styles and simple class or id rules in the
 * page's <style> blocks are read; external style sheets are not.
 */

export interface HiddenText {
  text: string;
  /** Hidden by a style that only hides text from eyes (not a menu or dialog toggle). */
  deceptive: boolean;
}

const WHITE =
  /^(?:white|#fff|#ffffff|#fefefe|rgba?\(\s*255\s*,\s*255\s*,\s*255\s*(?:,\s*1(?:\.0*)?\s*)?\)|hsl\(\s*0\s*,\s*0%\s*,\s*100%\s*\))$/;
const TRANSPARENT = /^(?:transparent|rgba\([^)]*,\s*0(?:\.0*)?\s*\))$/;

type Declarations = Map<string, string>;

function declarations(style: string): Declarations {
  const out: Declarations = new Map();
  for (const part of style.split(';')) {
    const colon = part.indexOf(':');
    if (colon > 0)
      out.set(
        part.slice(0, colon).trim().toLowerCase(),
        part
          .slice(colon + 1)
          .replace(/!important/i, '')
          .trim()
          .toLowerCase(),
      );
  }
  return out;
}

/** How a set of declarations hides text: deceptively, as a toggle, or not at all. */
function hiding(d: Declarations): 'deceptive' | 'toggle' | undefined {
  const size = d.get('font-size');
  const color = d.get('color');
  const background = d.get('background-color') ?? d.get('background');
  if (size !== undefined && /^0(?:\.0+)?(?:px|pt|em|rem|%)?$/.test(size)) return 'deceptive';
  if (d.get('opacity') !== undefined && /^0(?:\.0+)?$/.test(d.get('opacity')!)) return 'deceptive';
  if (
    color !== undefined &&
    (TRANSPARENT.test(color) || (WHITE.test(color) && (background === undefined || WHITE.test(background))))
  )
    return 'deceptive';
  if (color !== undefined && background !== undefined && color === background) return 'deceptive';
  const left = d.get('left') ?? d.get('text-indent') ?? d.get('top');
  if (left !== undefined && /^-\d{4,}(?:px|em)?$/.test(left)) return 'deceptive';
  if (d.get('clip') !== undefined && /rect\(\s*0/.test(d.get('clip')!)) return 'deceptive';
  if ((d.get('height') === '0' || d.get('height') === '0px') && d.get('overflow') === 'hidden') return 'deceptive';
  if (d.get('display') === 'none' || d.get('visibility') === 'hidden') return 'toggle';
  return undefined;
}

type Element = ReturnType<typeof parseHTML>['document']['body'];

/** The hidden passages of a page, outermost hiding element first, each once. */
export function hiddenHtmlText(html: string): HiddenText[] {
  const { document } = parseHTML(html);
  const hidden = new Map<Element, 'deceptive' | 'toggle'>();
  for (const element of document.querySelectorAll('[style]')) {
    const how = hiding(declarations(element.getAttribute('style') ?? ''));
    if (how) hidden.set(element as Element, how);
  }
  for (const element of document.querySelectorAll('[hidden]'))
    if (!hidden.has(element as Element)) hidden.set(element as Element, 'toggle');
  for (const style of document.querySelectorAll('style')) {
    for (const rule of (style.textContent ?? '').matchAll(/([^{}]+)\{([^}]*)\}/g)) {
      const how = hiding(declarations(rule[2]!));
      if (!how) continue;
      for (const selector of rule[1]!.split(',').map((s: string) => s.trim())) {
        if (!/^[.#]?[A-Za-z][\w-]*(?:\s+[.#]?[A-Za-z][\w-]*)*$/.test(selector)) continue;
        try {
          for (const element of document.querySelectorAll(selector))
            if (!hidden.has(element as Element)) hidden.set(element as Element, how);
        } catch {
          // A selector linkedom cannot read hides nothing we can tell.
        }
      }
    }
  }
  const out: HiddenText[] = [];
  for (const [element, how] of hidden) {
    let parent = element.parentElement;
    while (parent && !hidden.has(parent as Element)) parent = parent.parentElement;
    if (parent) continue;
    const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim();
    if (/\p{L}{2,}(?:\s+\p{L}{2,}){2,}/u.test(text)) out.push({ text, deceptive: how === 'deceptive' });
  }
  return out;
}
