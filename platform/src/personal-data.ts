/** Personal data encrypted per data subject (ARCHITECTURE, "Personal data"): the one module that handles keys. */
export * from './personal-data/personal-data-store';
export * from './personal-data/vault';
