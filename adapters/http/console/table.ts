import { html, type Html } from './html.js';

/**
 * A data table as every console list draws it: column heads with scope (screen readers), an optional
 * caption, the rows as given. On a narrow screen the CSS stacks each row and console.js labels every
 * cell with its column's head, so the heads are the only labels a page needs to write.
 */
/** A column head: its text, or its text and a class (e.g. `num` for a right-aligned amount). */
export type Head = string | Html | { readonly head: string | Html; readonly cls: string };

export const dataTable = (
  heads: readonly Head[],
  rows: Html | readonly Html[],
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
        ${heads.map((h) =>
          typeof h === 'object' && 'cls' in h ? html`<th scope="col" class="${h.cls}">${h.head}</th>` : html`<th scope="col">${h}</th>`,
        )}
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
