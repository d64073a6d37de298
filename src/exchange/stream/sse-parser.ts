/**
 * A lean `text/event-stream` parser (the WHATWG "server-sent events" interpretation), apart from any
 * connection: feed it the body's chunks as they arrive, it calls `onEvent` once per dispatched event.
 *
 *   const p = new SseParser((type, data, lastEventId) => ...);
 *   p.push(chunk);            // Buffer or string, split anywhere (inside a line, inside a UTF-8 character)
 *
 * - Lines end in LF, CRLF or CR; a leading BOM is skipped; `:` lines are comments (heartbeats), passed
 *   to `onComment` (the text after the colon) when one is given.
 * - `event` sets the type (default `message`), `data` lines are joined with LF, `id` sets the last event
 *   id, which carries over to later events of the same stream (an `id` containing NUL is ignored);
 *   `retry` and unknown fields are ignored. An event with no `data` line is not dispatched.
 * - One object per stream and a few strings per event: no per-event wrapper objects, no streams.
 */
import { StringDecoder } from 'node:string_decoder';

export type SseHandler = (type: string, data: string, lastEventId: string) => void;
/** a comment line's text after its `:` (one leading space dropped) */
export type SseCommentHandler = (text: string) => void;

export class SseParser {
  private readonly decoder = new StringDecoder('utf8');
  /** the unterminated tail of the last chunk */
  private rest = '';
  /** the last chunk ended in CR: an LF at the start of the next one belongs to that line end */
  private afterCr = false;
  private started = false;
  private type = '';
  private data = '';
  private hasData = false;
  private lastEventId = '';

  /** `maxLine`: characters a line may reach before `push` throws (a stream that never ends a line) */
  constructor(
    private readonly onEvent: SseHandler,
    private readonly maxLine = Infinity,
    private readonly onComment?: SseCommentHandler,
  ) {}

  push(chunk: Buffer | string): void {
    let text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (text.length === 0) return;
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.afterCr) {
      this.afterCr = false;
      if (text.charCodeAt(0) === 10) text = text.slice(1);
    }
    const buf = this.rest.length > 0 ? this.rest + text : text;
    const n = buf.length;
    let start = 0;
    for (let i = 0; i < n; i++) {
      const c = buf.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      this.line(buf, start, i);
      if (c === 13) {
        if (i + 1 < n) {
          if (buf.charCodeAt(i + 1) === 10) i++;
        } else this.afterCr = true;
      }
      start = i + 1;
    }
    this.rest = start < n ? buf.slice(start) : '';
    if (this.rest.length > this.maxLine) {
      this.rest = '';
      throw new Error(`event-stream line longer than ${this.maxLine} characters`);
    }
  }

  /** One line, `buf[start, end)`. */
  private line(buf: string, start: number, end: number): void {
    if (start === end) {
      this.dispatch();
      return;
    }
    if (buf.charCodeAt(start) === 58) {
      // ':' comment, in stream order with the events around it
      if (this.onComment) this.onComment(buf.slice(buf.charCodeAt(start + 1) === 32 ? start + 2 : start + 1, end));
      return;
    }
    let colon = buf.indexOf(':', start);
    if (colon < 0 || colon > end) colon = end;
    let vStart = colon + 1;
    if (vStart < end && buf.charCodeAt(vStart) === 32) vStart++;
    const value = colon < end ? buf.slice(vStart, end) : '';
    const nameLen = colon - start;
    // field names compared in place, so no string is made for the name
    if (nameLen === 4 && buf.startsWith('data', start)) {
      this.data = this.hasData ? `${this.data}\n${value}` : value;
      this.hasData = true;
    } else if (nameLen === 5 && buf.startsWith('event', start)) this.type = value;
    else if (nameLen === 2 && buf.startsWith('id', start)) {
      if (value.indexOf('\0') < 0) this.lastEventId = value;
    }
  }

  private dispatch(): void {
    if (!this.hasData) {
      this.type = '';
      return;
    }
    const type = this.type || 'message';
    const data = this.data;
    this.type = '';
    this.data = '';
    this.hasData = false;
    this.onEvent(type, data, this.lastEventId);
  }
}
