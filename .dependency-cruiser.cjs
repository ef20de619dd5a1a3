// The import boundaries between the workspace packages and between the UI's layers and features. They are checked
// on resolved paths, so a rule holds however deep the importing file sits and whether it names a package or a
// relative path. Run by `npm run check`; scripts/src/boundaries.unit.test.ts plants one violation per rule.
const test = '\\.test\\.tsx?$|/testing/';
// Unanchored: a package may resolve through a symlinked node_modules (as in the test's copy of the tree).
const testSupport = '(^|/)node_modules/(vitest|fast-check|happy-dom|@testing-library/[^/]+)/';

const rule = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

module.exports = {
  forbidden: [
    // Every rule below reads the resolved path, so an import that resolves nowhere would slip through them all.
    rule(
      'resolvable',
      'An import that does not resolve cannot be checked against the boundaries.',
      {},
      { couldNotResolve: true },
    ),
    rule(
      'package-by-name',
      'Import another workspace package by its name (@agency/<package>/...), never by a relative path into its src/.',
      { path: '^([^/]+)/' },
      { dependencyTypes: ['local'], path: '^[^/]+/src/', pathNot: '^$1/' },
    ),
    rule(
      'test-support-in-tests',
      'Test support lives in *.test.ts files or a testing/ folder, never in production sources.',
      { path: '^(contracts|domain|platform|command-service|projection-service|ui|scripts)/', pathNot: test },
      { path: testSupport },
    ),
    rule(
      'services-apart',
      'A service never imports the other service: the two share only contracts, domain and the database.',
      { path: '^(command-service|projection-service|platform)/' },
      { path: '^(command-service|projection-service)/', pathNot: '^$1/' },
    ),
    rule(
      'domain-pure',
      'domain imports only @agency/contracts: pure rules, no I/O, no clock, no framework.',
      { path: '^domain/' },
      { pathNot: `^(domain|contracts)/|${testSupport}` },
    ),
    rule(
      'contracts-zod-only',
      'contracts imports only zod.',
      { path: '^contracts/' },
      { pathNot: `^contracts/|(^|/)node_modules/zod/|${testSupport}` },
    ),
    rule(
      'ui-pure',
      'The UI imports only contracts and domain (pure rules), never platform, a service or scripts.',
      { path: '^ui/' },
      { path: '^(platform|command-service|projection-service|scripts|e2e|bench)/' },
    ),
    rule(
      'lib-below-features',
      'lib/ and components/ sit below the features: they import neither a feature nor app/.',
      { path: '^ui/src/(lib|components)/' },
      { path: '^ui/src/(features|app)/' },
    ),
    rule(
      'feature-alone',
      'A feature imports neither another feature nor app/: move what is shared down to components/ or lib/.',
      { path: '^ui/src/features/([^/]+)/' },
      { path: '^ui/src/(app|features)/', pathNot: '^ui/src/features/$1/' },
    ),
  ],
  options: {
    // Git-ignored build output and data folders.
    exclude: { path: '^(\\.[a-z]|coverage/|test-results/|(?!node_modules/)[^/]+/dist/)' },
    doNotFollow: { path: 'node_modules' },
    skipAnalysisNotInRules: true,
    tsPreCompilationDeps: true, // type-only imports cross boundaries too
    // The workspace packages export `./*` as `./src/*.ts`: resolve them as TypeScript does.
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types'] },
  },
};
