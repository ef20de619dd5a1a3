import { css, Global, useTheme } from '@emotion/react';

export function GlobalStyles() {
  const theme = useTheme();
  return (
    <Global
      styles={css`
        *,
        *::before,
        *::after {
          box-sizing: border-box;
        }
        html {
          font-size: 16px;
        }
        body {
          margin: 0;
          font-family: ${theme.fonts.body};
          color: ${theme.colors.text};
          background: ${theme.colors.background};
          line-height: 1.5;
        }
        a {
          color: ${theme.colors.primary};
        }
        :focus-visible {
          outline: 3px solid ${theme.colors.focus};
          outline-offset: 2px;
        }
        .visually-hidden {
          position: absolute;
          width: 1px;
          height: 1px;
          margin: -1px;
          padding: 0;
          overflow: hidden;
          clip: rect(0 0 0 0);
          white-space: nowrap;
          border: 0;
        }
        /* Table body cells and rows (components/table.tsx): plain classes, no styles computed per cell. */
        .cell {
          padding: 0.65rem 0.75rem;
          border-bottom: 1px solid ${theme.colors.border};
          vertical-align: middle;
          text-align: left;
        }
        /* Money and dates never break across lines; names may. */
        .cell-numeric {
          text-align: right;
          font-variant-numeric: tabular-nums;
          white-space: nowrap;
        }
        .cell-nowrap {
          white-space: nowrap;
        }
        /* A muted note in a cell, e.g. (invoiced), (inactive). */
        .cell-note {
          color: ${theme.colors.muted};
          font-size: 0.85rem;
        }
        .cell-note-apart {
          margin-left: 0.5rem;
        }
        .row-clickable {
          cursor: pointer;
        }
        .row:hover {
          background: ${theme.colors.rowHover};
        }
        .row:last-of-type > .cell {
          border-bottom: none;
        }
        /*
         * On a phone a table's rows are cards (components/table.tsx): each cell a line of its
         * column's label (data-label, from the header row) and its value; the header row is read
         * by screen readers only. A cell without a label (a total's "Total", an opened form) is a
         * line of its own.
         */
        .table-cards table,
        .table-cards tbody,
        .table-cards tfoot,
        .table-cards tr,
        .table-cards td,
        .table-cards tbody th {
          display: block;
        }
        .table-cards thead {
          position: absolute;
          width: 1px;
          height: 1px;
          overflow: hidden;
          clip: rect(0 0 0 0);
          white-space: nowrap;
        }
        .table-cards tr {
          padding: 0.5rem 0;
          border-bottom: 1px solid ${theme.colors.border};
        }
        .table-cards tr:last-of-type {
          border-bottom: none;
        }
        .table-cards tfoot tr {
          border-top: 2px solid ${theme.colors.border};
        }
        .table-cards td,
        .table-cards tbody th {
          border-bottom: none;
          padding: 0.2rem 0.75rem;
          text-align: left;
          white-space: normal;
          overflow-wrap: anywhere;
        }
        /* The label in a column of its own on the left; the value wraps in the column on the right. */
        .table-cards td[data-label] {
          position: relative;
          padding-left: calc(38% + 1.25rem);
        }
        .table-cards td[data-label]::before {
          content: attr(data-label);
          position: absolute;
          left: 0.75rem;
          width: 38%;
          font-weight: 600;
          color: ${theme.colors.muted};
          font-size: 0.85rem;
          line-height: 1.75;
          overflow-wrap: anywhere;
        }
        .table-cards td:empty {
          display: none;
        }
        h1,
        h2,
        h3 {
          line-height: 1.25;
          /* A long name breaks rather than widen a phone's page. */
          overflow-wrap: anywhere;
        }
      `}
    />
  );
}
