// The fallback bench target when nginx is absent and cannot be installed: a minimal HTTP/1.1
// responder on node:net in its own process, answering every request on a keep-alive connection
// with a canned response (the token envelope for /api/auth.token, the success envelope for the
// rest). It parses only what it must — the head's end, Content-Length, the path — so it costs
// far less per request than any Node HTTP client. Prints its port on stdout when listening.
// Run: node --import tsx test/bench/raw-responder.ts
import { createServer, type Socket } from 'node:net';
import { SUCCESS_BODY, TOKEN_BODY } from './bench-target.ts';

const response = (body: string): Buffer =>
  Buffer.from(
    `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`,
    'latin1',
  );
const SUCCESS = response(SUCCESS_BODY);
const TOKEN = response(TOKEN_BODY);
const TOKEN_PATH = Buffer.from(' /api/auth.token ');
const HEAD_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

function serve(socket: Socket): void {
  socket.setNoDelay(true);
  let pending: Buffer | null = null;
  socket.on('data', (chunk: Buffer) => {
    let data = pending === null ? chunk : Buffer.concat([pending, chunk]);
    pending = null;
    const replies: Buffer[] = [];
    for (;;) {
      const headEnd = data.indexOf(HEAD_END);
      if (headEnd === -1) break;
      const head = data.toString('latin1', 0, headEnd);
      const bodyLength = Number(CONTENT_LENGTH.exec(head)?.[1] ?? 0);
      const end = headEnd + 4 + bodyLength;
      if (data.length < end) break;
      const requestLine = data.subarray(0, data.indexOf(13));
      replies.push(requestLine.indexOf(TOKEN_PATH) === -1 ? SUCCESS : TOKEN);
      data = data.subarray(end);
    }
    if (data.length > 0) pending = Buffer.from(data);
    if (replies.length === 1) socket.write(replies[0]!);
    else if (replies.length > 1) socket.write(Buffer.concat(replies));
  });
  socket.on('error', () => socket.destroy());
}

const server = createServer(serve);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address !== null ? address.port : 0}\n`);
});
process.on('SIGTERM', () => process.exit(0));
