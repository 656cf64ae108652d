// Calls to this server: REST, timed, with the headers a caller acts on; and one WebSocket,
// framed as the official client frames requests, with streamed replies and cancel.

/** A fresh correlation id (crypto.randomUUID needs a secure context; this page may not be one). */
export function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** {status, envelope, raw, correlationId, retryAfter, milliseconds} of one REST call; ``raw``
 * is the envelope, or the text of an answer that is not JSON. */
export async function rest(method, path, token, body) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const started = performance.now();
  let response;
  try {
    response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (error) {
    return { status: 0, envelope: localError('NETWORK_ERROR', `The server could not be reached: ${error.message}.`, true) };
  }
  const text = await response.text();
  let envelope;
  let raw;
  try {
    envelope = raw = JSON.parse(text);
  } catch {
    raw = text;
    envelope = localError(`HTTP_${response.status}`, `The server answered ${response.status} with no JSON.`, response.status >= 500);
  }
  return {
    status: response.status,
    envelope,
    raw,
    correlationId: response.headers.get('X-Correlation-Id'),
    retryAfter: response.headers.get('Retry-After'),
    milliseconds: performance.now() - started,
  };
}

/** An error envelope made here, shaped like the server's, for what never reached it. */
export function localError(code, message, retryable = false) {
  return { state: 'error', error: { code, message, retryable } };
}

/** One WebSocket to /ws, opened on first use with the token as its subprotocol. */
export class Socket {
  constructor() {
    this.socket = null;
    this.token = null;
    this.pending = new Map();
  }

  /** Send ``frame``; ``onFrame`` sees every reply to it; resolves with the last (not "started"). */
  async request(token, correlationId, frame, onFrame) {
    const socket = await this.open(token);
    if (socket.readyState !== WebSocket.OPEN) {
      const frame = { correlationId, ...localError('SOCKET_CLOSED', this.closedBecause, true) };
      onFrame(frame);
      return frame;
    }
    return new Promise((resolve) => {
      this.pending.set(correlationId, { onFrame, resolve });
      socket.send(JSON.stringify(frame));
    });
  }

  cancel(correlationId) {
    if (this.socket?.readyState === WebSocket.OPEN && this.pending.has(correlationId)) {
      this.socket.send(JSON.stringify({ action: 'cancel', headers: { correlationId } }));
    }
  }

  close() {
    this.socket?.close(1000, 'signed out');
    this.socket = null;
  }

  open(token) {
    if (this.socket && this.token === token && this.socket.readyState <= WebSocket.OPEN) return this.opened;
    this.close();
    const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws`;
    const socket = new WebSocket(url, ['optave-v1', token]);
    this.socket = socket;
    this.token = token;
    this.opened = new Promise((resolve) => {
      socket.addEventListener('open', () => resolve(socket), { once: true });
      // Not opened: the close below answers whatever was waiting; so does a later close.
      socket.addEventListener('close', (event) => {
        if (this.socket === socket) this.socket = null;
        this.closedBecause = event.code === 1006 && !event.wasClean
          ? 'The WebSocket could not be opened or was cut: the token may have expired (sign in again) or the server stopped.'
          : `The WebSocket closed (${event.code}): ${event.reason || 'no reason given'}.`;
        const why = this.closedBecause;
        for (const [id, { onFrame, resolve: answer }] of this.pending) {
          const frame = { correlationId: id, ...localError('SOCKET_CLOSED', why, true) };
          onFrame(frame);
          answer(frame);
        }
        this.pending.clear();
        resolve(socket);
      });
    });
    socket.addEventListener('message', (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      const id = frame.correlationId ?? frame.headers?.correlationId;
      const waiting = this.pending.get(id);
      if (!waiting) return;
      waiting.onFrame(frame);
      if (frame.state !== 'started') {
        this.pending.delete(id);
        waiting.resolve(frame);
      }
    });
    return this.opened;
  }
}
