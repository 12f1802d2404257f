/**
 * A chart of the Overview as a file of its own: an SVG document that carries the colours and type
 * the page's stylesheet gave it (as presentation attributes, so it looks the same anywhere), and
 * a PNG drawn from that SVG at twice its size.
 */

/** The styles a chart's marks and text take from the stylesheet, copied onto the saved file. */
const PRESENTATION = ['fill', 'fill-opacity', 'stroke', 'stroke-width', 'stroke-dasharray', 'opacity', 'font-family', 'font-size', 'font-weight', 'text-anchor', 'dominant-baseline', 'vector-effect'] as const;

/** Attributes of the page that mean nothing in a file (focus, roles, Svelte's scoping classes). */
const PAGE_ONLY = ['class', 'tabindex', 'role', 'aria-label', 'aria-hidden', 'focusable', 'data-testid'] as const;

/**
 * The chart drawn by `svg` as a standalone SVG document, with its title and a background in the
 * page's colour (light or dark, as on screen).
 * @returns the file's text, and its size in CSS pixels
 */
export function standaloneSvg(svg: SVGSVGElement, title: string): { text: string; width: number; height: number } {
  const box = svg.getBoundingClientRect();
  const width = Math.round(box.width);
  const height = Math.round(box.height);
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const from = [svg, ...svg.querySelectorAll('*')];
  const to = [clone, ...clone.querySelectorAll('*')];
  from.forEach((el, i) => {
    const target = to[i];
    if (!target) return;
    const computed = getComputedStyle(el);
    for (const prop of PRESENTATION) {
      const value = computed.getPropertyValue(prop);
      if (value) target.setAttribute(prop, value);
    }
    for (const attr of PAGE_ONLY) target.removeAttribute(attr);
  });
  const ns = 'http://www.w3.org/2000/svg';
  clone.setAttribute('xmlns', ns);
  clone.setAttribute('width', String(width));
  clone.setAttribute('height', String(height));
  if (!clone.getAttribute('viewBox')) clone.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const heading = document.createElementNS(ns, 'title');
  heading.textContent = title;
  const background = document.createElementNS(ns, 'rect');
  background.setAttribute('width', '100%');
  background.setAttribute('height', '100%');
  background.setAttribute('fill', getComputedStyle(svg.closest('section') ?? document.body).backgroundColor || '#ffffff');
  clone.prepend(heading, background);
  return { text: new XMLSerializer().serializeToString(clone), width, height };
}

/** UTF-8 text as base64. */
function base64Of(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * An SVG document drawn as a PNG at `scale` times its size (sharp on high-density screens).
 * @returns the PNG file as base64
 * @throws Error when the browser cannot draw it
 */
export async function pngOfSvg(svg: { text: string; width: number; height: number }, scale = 2): Promise<string> {
  const image = new Image();
  image.src = `data:image/svg+xml;base64,${base64Of(svg.text)}`;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.round(svg.width * scale));
  canvas.height = Math.max(1, Math.round(svg.height * scale));
  const context = canvas.getContext('2d');
  if (!context) throw new Error('This window cannot draw images.');
  context.drawImage(image, 0, 0, canvas.width, canvas.height);
  const url = canvas.toDataURL('image/png');
  return url.slice(url.indexOf(',') + 1);
}
