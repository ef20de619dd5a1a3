declare global {
  /** GETs started by route-preload.js (ui/route-preload.ts) as the page opened, by path. */
  var agencyEarlyAnswers: Record<string, Promise<Response>> | undefined;
}

/** An early answer is taken only while the page is opening: after that, ask afresh. */
const OPENING_MS = 10_000;

/** Drops every early answer not taken yet (lib/http.ts, before any POST: it may change what they say). */
export function forgetEarlyAnswers() {
  globalThis.agencyEarlyAnswers = undefined;
}

/**
 * The answer to `GET path` that route-preload.js started as the page opened, once (a later GET
 * of the same path asks the server again); undefined when there is none or the page has been
 * open for a while.
 */
export function takeEarlyAnswer(path: string): Promise<Response> | undefined {
  const answers = globalThis.agencyEarlyAnswers;
  const answer = answers?.[path];
  if (!answers || !answer) return undefined;
  delete answers[path];
  return performance.now() < OPENING_MS ? answer : undefined;
}
