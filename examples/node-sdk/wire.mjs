// The same conversation as sdk.mjs, over ws: the WebSocket library the official client SDK
// uses in Node 20, which aborts a handshake whose subprotocol answer is not what it must be.
// Frames are built as the SDK's buildMessageEnvelope builds them (docs/protocol/client.md §3).
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { check, config, requests } from './conversation.mjs';

async function token() {
  // As the SDK asks: credentials in the query string, an empty body.
  const query = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: config.clientId,
    client_secret: config.clientSecret,
  });
  const response = await fetch(`${config.url}/auth/oauth2/token?${query}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  const body = await response.json();
  if (!response.ok) throw new Error(`token: HTTP ${response.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

function open(transport, accessToken) {
  const url = `${config.url.replace(/^http/, 'ws')}/ws`;
  const socket = transport === 'query'
    ? new WebSocket(`${url}?Authorization=${encodeURIComponent(accessToken)}`)
    : new WebSocket(url, ['optave-v1', accessToken]);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

function envelope(action, params) {
  return JSON.stringify({
    action: 'message',
    headers: {
      correlationId: params.request.requestId,
      action,
      schemaRef: 'optave.message.v3',
      sdkVersion: '3.2.3',
      identifier: 'message',
      traceId: randomUUID(),
      idempotencyKey: randomUUID(),
      timestamp: params.headers.timestamp,
      issuedAt: new Date().toISOString(),
      networkLatencyMs: params.headers.networkLatencyMs,
    },
    payload: params,
  });
}

const accessToken = await token();
for (const transport of ['subprotocol', 'query']) {
  const socket = await open(transport, accessToken);
  const expected = transport === 'query' ? '' : 'optave-v1';
  if (socket.protocol !== expected) throw new Error(`${transport}: answered '${socket.protocol}'`);
  const sent = requests(transport);
  const pending = new Map();
  const arrived = [];
  const answered = new Promise((resolve, reject) => {
    socket.on('message', (data, isBinary) => {
      if (isBinary) return reject(new Error('a binary frame'));
      const frame = JSON.parse(data.toString());
      const id = frame.headers?.correlationId ?? frame.correlationId;
      if (!pending.has(id)) return reject(new Error(`a frame for no request: ${data}`));
      pending.get(id).push(frame);
      arrived.push(id.slice(-4));
      if ([...pending.values()].every((frames) => frames.length)) resolve();
    });
    socket.on('close', (code, reason) => reject(new Error(`closed ${code} ${reason}`)));
  });
  const started = Date.now();
  for (const [action, params] of sent) {
    pending.set(params.request.requestId, []);
    socket.send(envelope(action, params));
  }
  await answered;
  for (const [action, params] of sent) {
    const [frame] = pending.get(params.request.requestId);
    console.log(`${transport} ${action}: ${check(action, params.request.requestId, frame).slice(0, 70)}`);
  }
  console.log(`${transport}: ${sent.length} requests in flight, all answered in ${Date.now() - started} ms (arrival order ${arrived.join(' ')})`);
  socket.close(1000, 'done');
}
