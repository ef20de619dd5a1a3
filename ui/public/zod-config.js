// Zod compiles fast parsers with `new Function` unless told not to, and even its probe for that
// trips the Content-Security-Policy (script-src without 'unsafe-eval'). Zod reads this global
// when each schema is built, so it is set by this classic script, which runs before the app's
// module scripts (those run only once the document is parsed).
globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });
