import { describe, expect, it } from 'vitest';
import { suggestTutorNames } from './tutor-names';

const none = { usernames: new Set<string>(), prefixes: new Set<string>() };

describe('suggested tutor username and invoice prefix', () => {
  it('uses the first initial and last name, and the initials', () => {
    expect(suggestTutorNames('Jane', 'Smith', none)).toEqual({ username: 'jsmith', prefix: 'JS' });
  });

  it('drops accents, apostrophes and spaces', () => {
    expect(suggestTutorNames('Zoë', "O'Brien-Côté", none)).toEqual({ username: 'zobriencote', prefix: 'ZO' });
  });

  it('avoids names already taken, past tutors included', () => {
    const taken = { usernames: new Set(['jsmith']), prefixes: new Set(['JS', 'JSM']) };
    expect(suggestTutorNames('Jane', 'Smith', taken)).toEqual({ username: 'janesmith', prefix: 'JSMI' });
  });

  it('falls back to a number when every variant is taken', () => {
    const taken = { usernames: new Set(['jli', 'janeli', 'jli2']), prefixes: new Set(['JL', 'JLI', 'JL2']) };
    expect(suggestTutorNames('Jane', 'Li', taken)).toEqual({ username: 'jli3', prefix: 'JL3' });
  });
});
