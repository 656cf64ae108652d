// threadwise through the official client SDK, unchanged: authenticate, connect with either
// transport, several summarize and translate requests in flight on each socket.
//   THREADWISE_URL=http://127.0.0.1:8000 THREADWISE_CLIENT_ID=… THREADWISE_CLIENT_SECRET=… \
//   THREADWISE_ORG=org-acme node sdk.mjs
import { check, config, requests } from './conversation.mjs';

// SDK 3.2.3's promise methods check the socket's state against the global WebSocket class,
// which Node 20 lacks (Node 22 has it): give it the ws package the SDK connects with there.
if (typeof globalThis.WebSocket === 'undefined') {
  globalThis.WebSocket = (await import('ws')).default;
}

let OptaveJavaScriptSDK;
try {
  ({ default: OptaveJavaScriptSDK } = await import('@optave/client-sdk'));
} catch {
  console.error('@optave/client-sdk is not installed: npm install @optave/client-sdk@3.2.3');
  process.exit(77);
}

for (const authTransport of ['subprotocol', 'query']) {
  const sdk = new OptaveJavaScriptSDK({
    websocketUrl: `${config.url.replace(/^http/, 'ws')}/ws`,
    authenticationUrl: `${config.url}/auth/oauth2`,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    authTransport,
    requestTimeoutMs: 300000,
  });
  sdk.on('error', (error) => console.error(`${authTransport}: SDK error`, error));
  const token = await sdk.authenticate();
  if (!token) throw new Error(`${authTransport}: authenticate() gave no token`);
  await sdk.openConnection(token);
  const started = Date.now();
  const replies = await Promise.all(
    requests(authTransport).map(([action, params]) =>
      sdk[`${action}Async`](params).then((frame) => [action, params.request.requestId, frame]),
    ),
  );
  for (const [action, requestId, frame] of replies) {
    const content = check(action, requestId, typeof frame === 'string' ? JSON.parse(frame) : frame);
    console.log(`${authTransport} ${action}: ${content.slice(0, 70)}`);
  }
  console.log(`${authTransport}: ${replies.length} requests in flight, all answered in ${Date.now() - started} ms`);
  sdk.closeConnection();
}
