import type { Plugin, Rolldown } from 'vite';

/** The script the build writes beside index.html, and index.html loads first. */
export const ROUTE_PRELOAD_FILE = 'route-preload.js';

/**
 * The screens whose scripts are fetched from the start (a path, its page's module under src/),
 * and the signed-in shell every one of them is drawn in.
 */
const SCREENS: [path: string, module: string][] = [
  ['/clients', 'features/clients/pages/clients-page.tsx'],
  ['/lessons', 'features/lessons/pages/lessons-page.tsx'],
  ['/dashboard', 'features/dashboard/pages/dashboard-page.tsx'],
  ['/tutors', 'features/tutors/pages/tutors-page.tsx'],
  ['/invoices', 'features/invoices/pages/invoices-page.tsx'],
];
const SHELL = 'app/signed-in-shell.tsx';

/**
 * The script: modulepreload links for the screen's scripts, and its first GETs started at once
 * (who is signed in; the list's first page with the screen's default filters), each kept in
 * `agencyEarlyAnswers` under its path for lib/http.ts to take instead of asking again. A list's
 * address decides its first page only when nothing else does: the clients list's filters start
 * empty, and the lessons month is in the address (`?year=&month=[&tutorId=]`, no `asOf`).
 */
const preloadScript = (screens: Record<string, string[]>) => `// Written by the build (ui/route-preload.ts).
(function () {
  var screens = ${JSON.stringify(screens)};
  var path = location.pathname.replace(/\\/+$/, '');
  var scripts = screens[path];
  if (!scripts) return;
  for (var i = 0; i < scripts.length; i++) {
    var link = document.createElement('link');
    link.rel = 'modulepreload';
    link.crossOrigin = '';
    link.href = scripts[i];
    document.head.appendChild(link);
  }
  var answers = (window.agencyEarlyAnswers = window.agencyEarlyAnswers || {});
  function ask(url) {
    var answer = fetch(url, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
    // A failure is the app's to show when it takes the answer.
    answer.catch(function () {});
    answers[url] = answer;
  }
  ask('/auth/local/me');
  var query = new URLSearchParams(location.search);
  if (path === '/clients') ask('/api/clients?includeInactive=N&limit=100');
  var year = query.get('year') || '';
  var month = query.get('month') || '';
  if (path === '/lessons' && /^\\d{4}$/.test(year) && /^([1-9]|1[0-2])$/.test(month) && !query.has('asOf')) {
    ask('/api/lessons?' + new URLSearchParams({ year: year, month: month, tutorId: query.get('tutorId') || '', limit: '100' }));
  }
})();
`;

/**
 * Writes `route-preload.js`, a small classic script index.html runs before the app's own
 * (deferred, in document order): for the address it was opened at, it adds a modulepreload
 * link for each script of that screen and of the signed-in shell. Without it the browser learns
 * of those scripts only once the app's main script has arrived and run (the router's lazy
 * routes), a whole round trip and the main script's run later (the lists' largest
 * paint on a slow phone). A file of its own, not inline: the Content-Security-Policy allows
 * no inline script.
 */
export function routePreload(): Plugin {
  return {
    name: 'agency-route-preload',
    apply: 'build',
    // Before every other script of the page: deferred and module scripts run in document order.
    transformIndexHtml: {
      order: 'post',
      handler: (html) => {
        const first = html.indexOf('<script');
        if (first < 0) throw new Error('route-preload: index.html has no script to come before');
        return `${html.slice(0, first)}<script defer src="/${ROUTE_PRELOAD_FILE}"></script>\n    ${html.slice(first)}`;
      },
    },
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((file): file is Rolldown.OutputChunk => file.type === 'chunk');
      const byName = new Map(chunks.map((chunk) => [chunk.fileName, chunk]));
      // What index.html loads already (the entry and its static imports) is not asked for again.
      const loaded = new Set<string>();
      const withImports = (fileName: string, into: Set<string>) => {
        if (into.has(fileName)) return;
        into.add(fileName);
        for (const imported of byName.get(fileName)?.imports ?? []) withImports(imported, into);
      };
      for (const chunk of chunks) if (chunk.isEntry) withImports(chunk.fileName, loaded);
      const scriptsOf = (module: string) => {
        const chunk = chunks.find((candidate) => candidate.facadeModuleId?.endsWith(`/src/${module}`));
        if (!chunk) throw new Error(`route-preload: no chunk is built from src/${module}`);
        const files = new Set<string>();
        withImports(chunk.fileName, files);
        return [...files].filter((file) => !loaded.has(file)).map((file) => `/${file}`);
      };
      const shell = scriptsOf(SHELL);
      const screens = Object.fromEntries(
        SCREENS.map(([path, module]) => [path, [...new Set([...shell, ...scriptsOf(module)])]]),
      );
      this.emitFile({ type: 'asset', fileName: ROUTE_PRELOAD_FILE, source: preloadScript(screens) });
    },
  };
}
