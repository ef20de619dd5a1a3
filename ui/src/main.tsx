import { StrictMode, startTransition } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router-dom';
import { AppProviders } from './app/providers';
import { createRouter } from './app/router';

const router = createRouter();

const root = createRoot(document.getElementById('root')!);
// A transition: the first render is drawn in slices between which the browser stays responsive,
// rather than as one long task.
startTransition(() =>
  root.render(
    <StrictMode>
      <AppProviders>
        <RouterProvider router={router} />
      </AppProviders>
    </StrictMode>,
  ),
);
