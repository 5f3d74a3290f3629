/**
 * comparePage: `index.html` of `checkpoint-sim compare`. PLACEHOLDER until the page with the
 * plots lands (issue 15, helper "page", which replaces this file): a tiny valid page that names
 * the comparison and embeds the report as JSON in `<script type="application/json"
 * id="compare-data">`, the element the real page keeps.
 */
import type { CompareReport } from '../properties/compare/CompareReport.ts';

/** The page of `report`: one self-contained HTML document, the same text for the same report. */
export function comparePage(report: CompareReport): string {
  // `<` escaped so no text in the data can end the script element.
  const data = JSON.stringify(report).replace(/</g, '\\u003c');
  return '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
    + `<title>checkpoint-sim compare: ${report.job}</title></head>\n<body><h1>checkpoint-sim compare: ${report.job}</h1>`
    + '<p>The plots come with the comparison page; compare.md and compare.json hold the figures.</p>\n'
    + `<script type="application/json" id="compare-data">${data}</script>\n</body></html>\n`;
}
