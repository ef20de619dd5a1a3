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
