// The signed-in session: a token from the client credentials (or pasted), kept in this tab's
// sessionStorage only. The secret is sent once and never kept.

const KEY = 'threadwise.playground.session';

/** The session kept in this tab, or null (none, or its token has expired). */
export function current() {
  try {
    const session = JSON.parse(sessionStorage.getItem(KEY) ?? 'null');
    if (session && (!session.expiresAt || session.expiresAt > Date.now())) return session;
  } catch {
    // Not ours, or from an older page: sign in again.
  }
  sessionStorage.removeItem(KEY);
  return null;
}

export function forget() {
  sessionStorage.removeItem(KEY);
}

/** Exchange a client id and secret for a token; throws {code, message, status, retryAfter}. */
export async function signIn(clientId, clientSecret) {
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  let response;
  try {
    response = await fetch('/auth/oauth2/token', { method: 'POST', body: form });
  } catch (error) {
    throw { code: 'NETWORK_ERROR', message: `The server could not be reached: ${error.message}.` };
  }
  const answer = await response.json().catch(() => ({}));
  if (!response.ok || !answer.access_token) {
    throw {
      code: answer.error ?? `HTTP_${response.status}`,
      message: answer.error_description ?? `The token endpoint answered ${response.status}.`,
      status: response.status,
      retryAfter: response.headers.get('Retry-After'),
    };
  }
  return keep(answer.access_token, clientId, answer.expires_in);
}

/** Keep a pasted token (a leading "Bearer " is dropped); throws if it is not a JWT. */
export function useToken(text) {
  const token = text.trim().replace(/^Bearer\s+/i, '');
  if (!claims(token)) {
    throw { code: 'INVALID_TOKEN', message: 'That is not a token: paste the access_token of POST /auth/oauth2/token (three dot-separated parts).' };
  }
  return keep(token, null, null);
}

function keep(token, clientId, expiresIn) {
  const read = claims(token) ?? {};
  const expiresAt = read.exp ? read.exp * 1000 : expiresIn ? Date.now() + expiresIn * 1000 : null;
  const session = {
    token,
    clientId: clientId ?? read.sub ?? null,
    organizations: Array.isArray(read.orgs) ? read.orgs.map(String) : [],
    expiresAt,
  };
  sessionStorage.setItem(KEY, JSON.stringify(session));
  return session;
}

/** A JWT's claims, unverified (the server verifies it); null if ``token`` is not one. */
export function claims(token) {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  try {
    const base64 = parts[1].replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(parts[1].length / 4) * 4, '=');
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const read = JSON.parse(new TextDecoder().decode(bytes));
    return read && typeof read === 'object' ? read : null;
  } catch {
    return null;
  }
}
