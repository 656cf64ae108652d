// The request on screen as code to paste: curl, Python (threadwise.client) and Node (the
// official client SDK). Credentials come from the environment, never from this page.

const json = (body) => JSON.stringify(body, null, 2);

/** curl, reading the body from a quoted heredoc (no shell expansion inside). */
export function curl(action, body, origin) {
  let marker = 'JSON';
  while (json(body).includes(marker)) marker += '_END';
  return [
    '# TOKEN=$(curl -s -d grant_type=client_credentials -u "$THREADWISE_CLIENT_ID:$THREADWISE_CLIENT_SECRET" \\',
    `#   ${origin}/auth/oauth2/token | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')`,
    `curl -s ${origin}/message/${action} -H "Authorization: Bearer $TOKEN" \\`,
    `  -H 'Content-Type: application/json' --data-binary @- <<'${marker}'`,
    json(body),
    marker,
  ].join('\n');
}

/** Python with threadwise.client's blocking client. */
export function python(action, body, origin) {
  // A JSON text never holds three quotes in a row, so it fits a raw triple-quoted string.
  return [
    'import json',
    'import os',
    '',
    'from threadwise.client import SyncClient',
    '',
    `body = json.loads(r"""${json(body)}""")`,
    'with SyncClient(',
    `    ${JSON.stringify(origin)},`,
    '    client_id=os.environ["THREADWISE_CLIENT_ID"],',
    '    client_secret=os.environ["THREADWISE_CLIENT_SECRET"],',
    ') as threadwise:',
    `    envelope = threadwise.call(${JSON.stringify(action)}, body)`,
    'print(json.dumps(envelope, indent=2, ensure_ascii=False))',
  ].join('\n');
}

/** Node.js (an .mjs file) with the official client SDK, over the WebSocket. */
export function node(action, body, origin) {
  const socketOrigin = origin.replace(/^http/, 'ws');
  return [
    "import OptaveJavaScriptSDK from '@optave/client-sdk';",
    '',
    '// Node 20 has no global WebSocket, which the SDK compares states with (Node 22 has one).',
    "globalThis.WebSocket ??= (await import('ws')).default;",
    'const sdk = new OptaveJavaScriptSDK({',
    `  websocketUrl: '${socketOrigin}/ws',`,
    `  authenticationUrl: '${origin}/auth/oauth2',`,
    '  clientId: process.env.THREADWISE_CLIENT_ID,',
    '  clientSecret: process.env.THREADWISE_CLIENT_SECRET,',
    '  requestTimeoutMs: 300000,',
    '});',
    `const params = ${json(body)};`,
    'await sdk.openConnection(await sdk.authenticate());',
    `const reply = await sdk.${action}Async(params);`,
    "console.log(typeof reply === 'string' ? reply : JSON.stringify(reply, null, 2));",
    'sdk.closeConnection();',
  ].join('\n');
}

export const SNIPPETS = { curl, python, node };
