/**
 * Make text that came from a server (or any untrusted source) safe to show on a terminal or in
 * a result file: scrubs every known secret and token (a server may echo them), removes ANSI/OSC
 * escape sequences and every other control character, and caps the length. Hostile servers must
 * never be able to move the cursor, retitle the terminal, or get a secret printed.
 */
import { redactText } from './redact.ts';

// CSI (ESC [ … final byte), OSC (ESC ] … BEL or ESC \), other two-byte ESC sequences, and the C1 CSI.
const ESCAPE_SEQUENCE =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]|\u009b[0-?]*[ -/]*[@-~]/g;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function sanitizeText(text: string, maxLength = 200): string {
  // Redact before capping, so that a cut can never leave the first half of a secret behind.
  const clean = redactText(text).replace(ESCAPE_SEQUENCE, '').replace(CONTROL_CHARACTER, ' ');
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1)}…` : clean;
}

/** Sanitize the first bytes of a response body for use as evidence or a log line. */
export function excerptBody(body: Uint8Array | string, maxLength = 200): string {
  const text =
    typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, maxLength * 4)).toString('utf8');
  return sanitizeText(text, maxLength);
}
