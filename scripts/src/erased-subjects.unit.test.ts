import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { erasedSubjectsFile, readErasedSubjects, recordErasedSubjects } from './erased-subjects';

describe('the erased-subjects record', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const fresh = () => {
    const dir = mkdtempSync(join(tmpdir(), 'erased-subjects-'));
    dirs.push(dir);
    return dir;
  };

  it('is DATA_DIR/erased-subjects unless ERASED_SUBJECTS_FILE says where', () => {
    expect(erasedSubjectsFile('/srv/data', {})).toBe('/srv/data/erased-subjects');
    expect(erasedSubjectsFile('/srv/data', { ERASED_SUBJECTS_FILE: '/mnt/safe/erased' })).toBe('/mnt/safe/erased');
  });

  it('answers each subject once, at its first erasure, and none for a missing file', () => {
    const file = join(fresh(), 'erased-subjects');
    expect(readErasedSubjects(file)).toEqual([]);
    recordErasedSubjects(file, ['family-1'], new Date('2026-03-01T10:00:00Z'));
    recordErasedSubjects(file, ['family-2', 'family-1'], new Date('2026-03-02T10:00:00Z'));
    expect(readErasedSubjects(file)).toEqual([
      { subject: 'family-1', at: new Date('2026-03-01T10:00:00Z') },
      { subject: 'family-2', at: new Date('2026-03-02T10:00:00Z') },
    ]);
  });

  it('passes over a last line cut short by a crash, and refuses a damaged line before others', () => {
    const file = join(fresh(), 'erased-subjects');
    const whole = '{"subject":"family-1","at":"2026-03-01T10:00:00.000Z"}\n';
    writeFileSync(file, `${whole}{"subject":"fam`);
    expect(readErasedSubjects(file).map((e) => e.subject)).toEqual(['family-1']);
    writeFileSync(file, `{"subject":"fam\n${whole}`);
    expect(() => readErasedSubjects(file)).toThrow(/line 1: not a record of an erased subject/);
    writeFileSync(file, `{"subject":"family-1","at":"yesterday"}\n${whole}`);
    expect(() => readErasedSubjects(file)).toThrow(/line 1/);
  });
});
