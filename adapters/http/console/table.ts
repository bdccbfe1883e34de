import { html, type Html } from './html.js';

/**
 * A data table as every console list draws it: column heads with scope (screen readers), an optional
 * caption, the rows as given. On a narrow screen the CSS stacks each row and console.js labels every
 * cell with its column's head, so the heads are the only labels a page needs to write.
 */
export const dataTable = (
  heads: readonly (string | Html)[],
  rows: readonly Html[],
  opts: { readonly caption?: string | Html; readonly id?: string; readonly cls?: string } = {},
): Html =>
  html`<table${opts.id ? html` id="${opts.id}"` : ''}${opts.cls ? html` class="${opts.cls}"` : ''}>
    ${
      opts.caption
        ? html`<caption>
            ${opts.caption}
          </caption>`
        : ''
    }
    <thead>
      <tr>
        ${heads.map((h) => html`<th scope="col">${h}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
