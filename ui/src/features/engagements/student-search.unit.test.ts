import { describe, expect, it } from 'vitest';
import { escapeRegExp, matchStudents } from './student-search';

const students = [
  { firstName: 'Amy', lastName: 'Archer' },
  { firstName: 'Alfie', lastName: 'Archer' },
  { firstName: 'Sean', lastName: "O'Brien" },
  { firstName: 'Zoe (Jo)', lastName: 'Smith-Jones' },
  { firstName: 'Cam', lastName: 'Lee' },
];
const names = (typed: string) => matchStudents(students, typed).map((s) => `${s.firstName} ${s.lastName}`);

describe('finding a student by name', () => {
  it('matches every typed word at the start of a word of the name, in any order, ignoring case', () => {
    expect(names('ar')).toEqual(['Amy Archer', 'Alfie Archer']);
    expect(names('archer AM')).toEqual(['Amy Archer']);
    expect(names('brien')).toEqual(["Sean O'Brien"]);
    expect(names('jones')).toEqual(['Zoe (Jo) Smith-Jones']);
    expect(names('am')).toEqual(['Amy Archer']);
  });

  it('treats regular-expression characters as text, never as a pattern or an error', () => {
    expect(() => matchStudents(students, '(')).not.toThrow();
    expect(names('(jo')).toEqual(['Zoe (Jo) Smith-Jones']);
    expect(names('zoe (jo)')).toEqual(['Zoe (Jo) Smith-Jones']);
    expect(names('.*')).toEqual([]);
    expect(names('[a-z]+')).toEqual([]);
    expect(escapeRegExp('a.b*c?(d)[e]{f}|g^h$i\\j+')).toBe('a\\.b\\*c\\?\\(d\\)\\[e\\]\\{f\\}\\|g\\^h\\$i\\\\j\\+');
  });

  it('answers nothing for blank text and at most the limit', () => {
    expect(names('   ')).toEqual([]);
    expect(matchStudents(students, 'a', 1)).toHaveLength(1);
  });
});
