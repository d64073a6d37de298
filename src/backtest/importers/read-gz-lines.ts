/** Read a gzip text file into lines (the shared data sets are a few MB compressed). */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { BadInputError } from '../../model/errors.ts';

export function readGzipLines(path: string): string[] {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch (e) {
    throw new BadInputError('PATH', `a readable file (${(e as NodeJS.ErrnoException).code ?? 'error'})`, path);
  }
  let text: string;
  try {
    text = gunzipSync(buf).toString('utf8');
  } catch {
    throw new BadInputError('PATH', 'a gzip-compressed file', path);
  }
  const lines = text.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
