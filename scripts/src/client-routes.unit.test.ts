import { describe, expect, it } from 'vitest';
import { isClientRoute } from './app';

describe('which unknown addresses get the app', () => {
  it('answers screens with the app, for GET and HEAD', () => {
    expect(isClientRoute('GET', '/clients')).toBe(true);
    expect(isClientRoute('HEAD', '/client/4f1c?tab=1')).toBe(true);
    expect(isClientRoute('GET', '/reports/invoices')).toBe(true);
    expect(isClientRoute('GET', '/activate/abc-DEF_123')).toBe(true);
  });

  it('leaves the API, auth, missing files and other methods to a 404', () => {
    expect(isClientRoute('GET', '/api/nothing')).toBe(false);
    expect(isClientRoute('GET', '/api')).toBe(false);
    expect(isClientRoute('GET', '/auth/local/nope')).toBe(false);
    expect(isClientRoute('GET', '/assets/index-OLD123.js')).toBe(false);
    expect(isClientRoute('GET', '/favicon.ico')).toBe(false);
    expect(isClientRoute('POST', '/clients')).toBe(false);
  });

  it('does not mistake a screen whose name starts like the API for it', () => {
    expect(isClientRoute('GET', '/apiary')).toBe(true);
  });
});
