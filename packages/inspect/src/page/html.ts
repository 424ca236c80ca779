/** Markup that is already safe; anything else interpolated by {@link html} is escaped. */
export class Markup {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Text as HTML text or attribute value.
 *
 * @example
 * ```ts
 * escapeHtml("<script>"); // "&lt;script&gt;"
 * ```
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

function piece(value: unknown): string {
  if (value instanceof Markup) return value.value;
  if (Array.isArray(value)) return value.map(piece).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/**
 * A template tag that escapes every interpolated value unless it is {@link Markup}
 * (arrays are joined): message content can only ever land in the page as text.
 *
 * @example
 * ```ts
 * html`<pre>${message.content}</pre>`; // "<script>" is shown, never run
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Markup {
  let out = strings[0] as string;
  values.forEach((value, i) => {
    out += piece(value) + (strings[i + 1] as string);
  });
  return new Markup(out);
}

/** Trusted markup (our own constant CSS, script and SVG), never content. */
export function trusted(value: string): Markup {
  return new Markup(value);
}

/** A number with thousands separators, stable whatever the locale. */
export function count(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}
