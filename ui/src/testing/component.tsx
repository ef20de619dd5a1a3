import { ThemeProvider } from '@emotion/react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { vi } from 'vitest';
import { theme } from '../app/theme';
import { CurrentUserContext, type User } from '../lib/current-user';

/** A request a screen sent, its JSON body parsed. */
export type SentRequest = { method: string; path: string; body: unknown };

/** What the server answers a request: 200 with `{}` unless told otherwise. */
export type Answer = { status?: number; body?: unknown };

/**
 * The server as a screen reaches it, through `fetch`: every request is recorded, and `answer`
 * says what comes back. The screen's own request code (headers, body, error replies) runs as in
 * the browser; only the network is not there.
 */
export function fakeServer(answer: (request: SentRequest) => Answer | undefined = () => undefined) {
  const requests: SentRequest[] = [];
  vi.stubGlobal('fetch', async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), window.location.href);
    const request = {
      method: init?.method ?? 'GET',
      path: url.pathname + url.search,
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    requests.push(request);
    const { status = 200, body = {} } = answer(request) ?? {};
    return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
  });
  return {
    requests,
    /** The commands sent (every POST), in order. */
    posts: () => requests.filter((request) => request.method === 'POST'),
  };
}

/**
 * The message a field says it is in error with (its `aria-invalid`, and the text its
 * `aria-describedby` points to), or null while it is not in error: what a screen reader announces.
 */
export function fieldError(label: string): string | null {
  const field = screen.getByLabelText(label);
  if (field.getAttribute('aria-invalid') !== 'true') return null;
  const ids = (field.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean);
  return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
}

/** Where the screen navigated to: any address other than the screen's own lands here. */
function Elsewhere() {
  const location = useLocation();
  return <p>Navigated to {location.pathname}</p>;
}

/** The text the page shows once the screen has navigated to `path`. */
export const navigatedTo = (path: string) => screen.findByText(`Navigated to ${path}`);

/**
 * Draws `element` as the router draws a screen: at `at` (matching the route `path`), with the
 * app's theme and, for a screen inside the signed-in shell, its `user`.
 */
export function renderScreen(element: ReactElement, options: { path?: string; at?: string; user?: User } = {}) {
  const { path = '/screen', at = path, user = null } = options;
  const result = render(
    <ThemeProvider theme={theme}>
      <CurrentUserContext.Provider value={user}>
        <MemoryRouter initialEntries={[at]}>
          <Routes>
            <Route path={path} element={element} />
            <Route path="*" element={<Elsewhere />} />
          </Routes>
        </MemoryRouter>
      </CurrentUserContext.Provider>
    </ThemeProvider>,
  );
  return { ...result, user: userEvent.setup() };
}
