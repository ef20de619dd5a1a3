import { appendFileSync, closeSync, existsSync, fsyncSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The erased-subjects record: one line per data subject whose key was shredded (`{"subject", "at"}`),
 * appended by every process of the product as it shreds, kept outside the database. A backup holds
 * the keys as they were when it was made; restoring it shreds again every subject this record
 * names, so an erasure made after a backup still holds once that backup is restored
 * (docs/backups.md). Subject ids are pseudonymous (`family:{uuid}`…), nothing personal.
 */
export function erasedSubjectsFile(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.ERASED_SUBJECTS_FILE || join(dataDir, 'erased-subjects'));
}

/** Appends and flushes to disk before the key goes: an erasure not on record would come back with a restore. */
export function recordErasedSubjects(file: string, subjects: string[], at: Date) {
  const fd = openSync(file, 'a', 0o600);
  try {
    appendFileSync(fd, subjects.map((subject) => `${JSON.stringify({ subject, at: at.toISOString() })}\n`).join(''));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export type ErasedSubject = { subject: string; at: Date };

/** The subjects a record names, the earliest time of each; a missing file names none. */
export function readErasedSubjects(file: string): ErasedSubject[] {
  if (!existsSync(file)) return [];
  const found = new Map<string, Date>();
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let entry: { subject?: unknown; at?: unknown };
    try {
      entry = JSON.parse(line);
    } catch {
      // A line cut short by a crash mid-append is the last one: it was never acted on (the key went after).
      if (index === lines.length - 1 || lines.slice(index + 1).every((rest) => rest.trim() === '')) return;
      throw new Error(`${file}, line ${index + 1}: not a record of an erased subject`);
    }
    const at = new Date(String(entry.at));
    if (typeof entry.subject !== 'string' || entry.subject === '' || Number.isNaN(at.getTime())) {
      throw new Error(`${file}, line ${index + 1}: not a record of an erased subject`);
    }
    const before = found.get(entry.subject);
    if (!before || at < before) found.set(entry.subject, at);
  });
  return [...found].map(([subject, at]) => ({ subject, at }));
}
