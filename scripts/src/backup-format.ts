import { createCipheriv, createDecipheriv, createHash, randomBytes, scryptSync } from 'node:crypto';
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';

/**
 * A backup file (docs/backups.md): a header block of HEADER_BYTES (the magic line, then the header
 * as JSON, padded with spaces), then the body, gzip-compressed. The body is a run of sections,
 * each a JSON line: a table (`{"table", "columns"}`) followed by its rows in COPY's text format and
 * a line `\.` (which no row can be: COPY writes a backslash as `\\`), the keys when included
 * (`{"keys": base64}`), and `{"end": true}`. The header is written last, into its block, so it
 * holds what is only known at the end: the row counts, the sequences and the body's checksum.
 */
export const MAGIC = 'AGENCY-BACKUP';
export const FORMAT = 1;
export const HEADER_BYTES = 64 * 1024;

export type TableEntry = { table: string; columns: string[]; rows: number };
export type SequenceEntry = { sequence: string; value: string; called: boolean };

export type BackupHeader = {
  kind: 'backup';
  format: number;
  backupId: string;
  createdAt: string;
  /** The newest event in the backup (`$all` position in the source cluster), and how many. */
  position: { commit: string; prepare: string } | null;
  events: number;
  /** Distinct transaction ids of the events: the restore renumbers them below its cluster's. */
  transactions: number;
  tables: TableEntry[];
  sequences: SequenceEntry[];
  keys: 'included' | 'apart';
  body: { bytes: number; sha256: string };
};

export type KeysHeader = {
  kind: 'keys';
  format: number;
  backupId: string;
  createdAt: string;
  encrypted: boolean;
  body: { bytes: number; sha256: string };
};

/**
 * The personal-data keys: the master key and every table of schema `pii` (the data keys, wrapped
 * by the master key), as COPY text.
 */
export type KeysPayload = { masterKey: string; tables: { table: string; columns: string[]; copy: string }[] };

export class BackupRefused extends Error {}

/**
 * The header's block: the magic line, the header as JSON, and that JSON's sha256 (the body's
 * checksum is in the header; this one covers the header itself: a damaged row count, transaction
 * count or sequence value would otherwise be restored as read).
 */
export function headerBlock(header: BackupHeader | KeysHeader): Buffer {
  const json = JSON.stringify(header);
  const text = `${MAGIC} ${FORMAT}\n${json}\nsha256 ${createHash('sha256').update(json).digest('hex')}\n`;
  const bytes = Buffer.from(text);
  if (bytes.length > HEADER_BYTES) throw new Error(`The backup's header needs ${bytes.length} bytes, over its block`);
  return Buffer.concat([bytes, Buffer.alloc(HEADER_BYTES - bytes.length, ' ')]);
}

/** A backup file's header, checked for what it claims to be; a body that does not match its checksum is refused. */
export async function readHeader<K extends 'backup' | 'keys'>(
  file: string,
  kind: K,
): Promise<K extends 'backup' ? BackupHeader : KeysHeader> {
  const block = Buffer.alloc(HEADER_BYTES);
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw new BackupRefused(`Cannot read ${file}: ${(error as Error).message}`);
  }
  let read: number;
  try {
    read = readSync(fd, block, 0, HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  const text = block.subarray(0, read).toString('utf8');
  const [magic, json, checksum] = text.split('\n');
  const what = kind === 'backup' ? 'a backup of this product' : "a backup's keys file";
  if (!magic?.startsWith(`${MAGIC} `)) throw new BackupRefused(`${file} is not ${what}.`);
  if (magic !== `${MAGIC} ${FORMAT}`) {
    throw new BackupRefused(
      `${file} is in backup format ${magic.slice(MAGIC.length + 1)}; this release reads ${FORMAT}.`,
    );
  }
  if (
    checksum !==
    `sha256 ${createHash('sha256')
      .update(json ?? '')
      .digest('hex')}`
  ) {
    throw new BackupRefused(
      `${file} is damaged: its header does not match its checksum. Nothing was restored from it.`,
    );
  }
  let header: BackupHeader | KeysHeader;
  try {
    header = JSON.parse(json ?? '');
  } catch {
    throw new BackupRefused(`${file} is damaged: its header does not read.`);
  }
  if (header.kind !== kind) throw new BackupRefused(`${file} is not ${what}.`);
  await checkBody(file, header.body);
  return header as K extends 'backup' ? BackupHeader : KeysHeader;
}

async function checkBody(file: string, body: { bytes: number; sha256: string }) {
  const hash = createHash('sha256');
  let bytes = 0;
  await pipeline(createReadStream(file, { start: HEADER_BYTES }), async (chunks: AsyncIterable<Buffer>) => {
    for await (const chunk of chunks) {
      bytes += chunk.length;
      hash.update(chunk);
    }
  });
  if (bytes !== body.bytes || hash.digest('hex') !== body.sha256) {
    throw new BackupRefused(
      `${file} is damaged (${bytes === body.bytes ? 'its checksum differs' : `${bytes} bytes of ${body.bytes}`}): nothing was restored from it.`,
    );
  }
}

const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/**
 * A passphrase from its file: UTF-8 (a file in another encoding is refused rather than read as
 * other characters, which would make different passphrases one), without a byte-order mark or a
 * final new line, in Unicode's composed form (NFC), so an "é" typed as one character or as "e"
 * and an accent opens what the other sealed. At least 12 characters.
 */
export function passphraseFrom(bytes: Buffer, file: string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new BackupRefused(`The passphrase file ${file} is not UTF-8 text: save it as UTF-8.`);
  }
  const passphrase = normalPassphrase(text.replace(/^\uFEFF/, '').replace(/\r?\n$/, ''));
  if ([...passphrase].length < 12) throw new BackupRefused(`The passphrase in ${file} is shorter than 12 characters.`);
  return passphrase;
}

const normalPassphrase = (passphrase: string) => passphrase.normalize('NFC');

/** The keys under a passphrase: scrypt derives the key, AES-256-GCM seals (and authenticates) them. */
export function sealKeys(payload: KeysPayload, passphrase: string): Buffer {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const key = scryptSync(normalPassphrase(passphrase), salt, 32, SCRYPT);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(payload)), cipher.final()]);
  const parameters = Buffer.from(JSON.stringify({ kdf: 'scrypt', N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p }));
  const length = Buffer.alloc(2);
  length.writeUInt16BE(parameters.length);
  return Buffer.concat([length, parameters, salt, iv, cipher.getAuthTag(), sealed]);
}

export function openKeys(sealed: Buffer, passphrase: string | undefined): KeysPayload {
  if (passphrase === undefined) {
    throw new BackupRefused("This backup's personal-data keys are under a passphrase: give it with --passphrase-file.");
  }
  const length = sealed.readUInt16BE(0);
  const { N, r, p } = JSON.parse(sealed.subarray(2, 2 + length).toString()) as { N: number; r: number; p: number };
  const at = 2 + length;
  const salt = sealed.subarray(at, at + 16);
  const iv = sealed.subarray(at + 16, at + 28);
  const tag = sealed.subarray(at + 28, at + 44);
  const key = scryptSync(normalPassphrase(passphrase), salt, 32, { N, r, p, maxmem: SCRYPT.maxmem });
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  try {
    return JSON.parse(Buffer.concat([decipher.update(sealed.subarray(at + 44)), decipher.final()]).toString());
  } catch {
    throw new BackupRefused("The passphrase does not open this backup's personal-data keys: nothing was restored.");
  }
}

/** A table's name, quoted for SQL. */
export function qualified(table: string): string {
  const [schema, name] = table.split('.') as [string, string];
  return `"${schema.replaceAll('"', '""')}"."${name.replaceAll('"', '""')}"`;
}

/** Column names, quoted and listed for SQL. */
export function columnList(columns: string[]): string {
  return columns.map((column) => `"${column.replaceAll('"', '""')}"`).join(', ');
}
