// Zod compiles fast parsers with `new Function` unless told not to, and even its probe for that
// trips the Content-Security-Policy (script-src without 'unsafe-eval'). Zod reads this global
// when each schema is built, so it is set by this classic script. It is deferred (it does not hold
// up the first paint) and comes first in the document: deferred and module scripts run in document
// order once the document is parsed, so it still runs before the app's module scripts.
globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });
