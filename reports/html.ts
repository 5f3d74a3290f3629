/**
 * The small HTML pieces the report pages share (reports/comparePage.ts, reports/startPage.ts):
 * escaping, data embedded as JSON, and the page's frame with its inline style. Pure strings: no
 * DOM, no I/O, nothing that depends on time or place, so a page is a function of its input.
 */

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `s` as HTML text or a quoted attribute value: `& < > " '` as entities. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ENTITIES[c] as string);
}

/**
 * `value` as JSON to put inside a `<script type="application/json">`: `<`, `>` and `&` as
 * `\u003c`-style escapes (so no `</script>` or `<!--` in a string can end or confuse the script
 * element), and U+2028/U+2029 too. `JSON.parse` of the element's text gives `value` back.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A `<script type="application/json">` element with id `id` holding `value` (see jsonForScript). */
export function jsonScript(id: string, value: unknown): string {
  return `<script type="application/json" id="${escapeHtml(id)}">${jsonForScript(value)}</script>`;
}

/** A table: `head` cells and `rows` of cells, all already HTML (escape text first). */
export function htmlTable(head: readonly string[], rows: readonly (readonly string[])[], attrs = ''): string {
  const tr = (cells: readonly string[], tag: 'th' | 'td') => `<tr>${cells.map((c) => `<${tag}>${c}</${tag}>`).join('')}</tr>`;
  return `<table${attrs}><thead>${tr(head, 'th')}</thead><tbody>${rows.map((r) => tr(r, 'td')).join('')}</tbody></table>`;
}

/** The pages' style: readable without any font or stylesheet from outside. */
const STYLE = `
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #1b1e23; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; padding-bottom: 0.2rem; }
h3 { font-size: 1rem; margin: 1.4rem 0 0.3rem; }
table { border-collapse: collapse; margin: 0.6rem 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d0d4da; padding: 0.2rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f3f4f6; }
td.num { text-align: right; }
dl.params { display: grid; grid-template-columns: max-content auto; gap: 0.1rem 1rem; }
dl.params dt { font-weight: 600; }
dl.params dd { margin: 0; }
figure { margin: 0.8rem 0 1.6rem; }
figcaption { font-size: 0.85rem; color: #4b5260; max-width: 46rem; }
pre { background: #f6f8fa; padding: 0.6rem; overflow-x: auto; font-size: 0.8rem; }
code { font-size: 0.9em; }
.note { font-size: 0.9rem; color: #4b5260; }
.bad { color: #b3261e; font-weight: 600; }
`;

/** A whole page: doctype, charset, `title` (text), the shared style plus `extraStyle`, and `body` (HTML). */
export function htmlDocument(title: string, body: string, extraStyle = ''): string {
  return '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
    + '<meta name="viewport" content="width=device-width, initial-scale=1">'
    + `<title>${escapeHtml(title)}</title><style>${STYLE}${extraStyle}</style></head>\n<body>\n${body}\n</body></html>\n`;
}
