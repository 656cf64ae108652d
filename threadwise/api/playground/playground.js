// The playground page: sign in, edit a conversation, run a superpower, see what went over
// the wire. Modules: session (token), transcript (lines ⇄ body), calls (REST, WebSocket),
// render (answers), snippets (copy as), samples, protected (spans no engine sees).

import { Socket, localError, newId, rest } from './calls.js';
import { element, renderLanguages, renderSummary, renderTranslations } from './render.js';
import { SAMPLES } from './samples.js';
import * as session from './session.js';
import { SNIPPETS } from './snippets.js';
import { fromLines, toLines } from './transcript.js';

const $ = (id) => document.getElementById(id);
const ASPECTS = ['issue', 'resolution', 'resolutionStatus', 'nextSteps', 'sentiment', 'chapterTitle', 'narrative', 'recap', 'entities'];
const TARGETS = ['en', 'es', 'fr', 'de', 'pt'];
const SUMMARY_LANGUAGES = ['en', 'es', 'fr', 'de', 'pt', 'it', 'nl', 'sv', 'id'];
const DRAFT = 'threadwise.playground.draft';

const state = {
  session: session.current(),
  body: null,
  editor: 'lines',
  action: 'summarize',
  running: null,
  languagesLoaded: false,
};
const socket = new Socket();

// --- signing in --------------------------------------------------------------------------

function showSession() {
  const signedIn = state.session !== null;
  $('sign-in').hidden = signedIn;
  $('sign-out').hidden = !signedIn;
  const organizations = state.session?.organizations ?? [];
  const picked = $('organization').value;
  $('organization-field').hidden = !organizations.length;
  $('organization').replaceChildren(...organizations.map((org) => element('option', { value: org, text: org })));
  if (!signedIn) {
    $('account-status').textContent = 'Not signed in';
    return;
  }
  const who = state.session.clientId ? `as ${state.session.clientId}` : 'with a pasted token';
  const until = state.session.expiresAt ? ` until ${new Date(state.session.expiresAt).toLocaleTimeString()}` : '';
  $('account-status').textContent = `Signed in ${who}${until}`;
  // The one chosen before, else the body's own, else the token's first.
  const wanted = [picked, state.body?.request?.context?.organizationId].find((org) => organizations.includes(org));
  if (wanted) $('organization').value = wanted;
}

function signedIn(kept) {
  state.session = kept;
  $('sign-in-error').textContent = '';
  $('client-secret').value = '';
  $('pasted-token').value = '';
  showSession();
  readLanguages();
  $(state.action === 'translate' ? 'translate-button' : 'summarize-button').focus();
}

function signInFailed(error) {
  const wait = error.retryAfter ? ` Try again in ${error.retryAfter} s.` : '';
  $('sign-in-error').textContent = `${error.code}: ${error.message}${wait}`;
}

$('credentials-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  $('sign-in-button').disabled = true;
  try {
    signedIn(await session.signIn($('client-id').value.trim(), $('client-secret').value));
  } catch (error) {
    signInFailed(error);
  } finally {
    $('sign-in-button').disabled = false;
  }
});

$('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  try {
    signedIn(session.useToken($('pasted-token').value));
  } catch (error) {
    signInFailed(error);
  }
});

$('sign-out').addEventListener('click', () => {
  session.forget();
  socket.close();
  state.session = null;
  showSession();
  $('client-id').focus();
});

/** The token, or null after showing the sign-in form (none yet, or it has expired). */
function token() {
  state.session = session.current();
  if (!state.session) {
    showSession();
    $('sign-in-error').textContent = 'Sign in first (or paste a token).';
    $('client-id').focus();
  }
  return state.session?.token ?? null;
}

// --- the conversation editor -----------------------------------------------------------

/** The body the editor holds now; shows what to fix and throws when it cannot be read. */
function editedBody() {
  try {
    const body = state.editor === 'lines' ? fromLines($('lines').value, state.body) : JSON.parse($('json').value);
    if (!body || typeof body !== 'object' || Array.isArray(body)) throw new Error('The body must be a JSON object: {"session": …, "request": …}.');
    $('editor-error').textContent = '';
    state.body = body;
    return body;
  } catch (error) {
    const where = error instanceof SyntaxError ? 'The JSON body does not parse: ' : '';
    $('editor-error').textContent = `${where}${error.message}`;
    throw error;
  }
}

function showBody(body) {
  state.body = body;
  $('lines').value = toLines(body);
  $('json').value = JSON.stringify(body, null, 2);
  showSession();
}

function chooseEditor(name) {
  if (name === state.editor) return;
  let body;
  try {
    body = editedBody();
  } catch {
    return false; // stay where the mistake is
  }
  state.editor = name;
  showBody(body);
  return true;
}

function saveDraft() {
  sessionStorage.setItem(DRAFT, JSON.stringify({ editor: state.editor, text: $(state.editor).value, body: state.body }));
}

function loadSample(name) {
  const sample = SAMPLES[name];
  showBody(structuredClone(sample.body));
  $('sample').value = name;
}

for (const [name, sample] of Object.entries(SAMPLES)) $('sample').append(element('option', { value: name, text: sample.title }));
$('sample').addEventListener('change', () => {
  loadSample($('sample').value);
  saveDraft();
});
// Kept for a reload of this tab: whatever the editor holds as the page goes away.
addEventListener('pagehide', saveDraft);
for (const id of ['lines', 'json']) {
  let timer;
  $(id).addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(saveDraft, 300);
  });
}

// --- tabs (arrow keys move between them, as ARIA's tab pattern has it) ---------------------

function tabs(list, onSelect) {
  const buttons = [...list.querySelectorAll('[role=tab]')];
  const select = (button) => {
    if (onSelect(button) === false) return;
    for (const each of buttons) {
      const chosen = each === button;
      each.setAttribute('aria-selected', String(chosen));
      each.tabIndex = chosen ? 0 : -1;
      $(each.getAttribute('aria-controls')).hidden = !chosen;
    }
  };
  for (const button of buttons) {
    button.addEventListener('click', () => select(button));
    button.addEventListener('keydown', (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const next = buttons[(buttons.indexOf(button) + step + buttons.length) % buttons.length];
      next.focus();
      select(next);
    });
  }
}

tabs($('tab-lines').parentElement, (button) => chooseEditor(button.id === 'tab-lines' ? 'lines' : 'json'));
tabs($('tab-summarize').parentElement, (button) => {
  state.action = button.id.replace('tab-', '');
  if (state.action === 'languages' && !state.languagesLoaded && state.session) loadLanguages();
});

// --- settings from the forms -------------------------------------------------------------

function checkboxes(container, name, values, checked) {
  container.replaceChildren(
    ...values.map((value) =>
      element('label', { class: 'check' }, element('input', { type: 'checkbox', name, value, checked: checked.includes(value) }), ` ${value}`),
    ),
  );
}

const listed = (text) => text.split(/[\s,]+/).filter(Boolean);
const chosen = (name) => [...document.querySelectorAll(`input[name=${name}]:checked`)].map((input) => input.value);

function set(settings, key, value) {
  if (value === null || value === '' || (Array.isArray(value) && !value.length)) delete settings[key];
  else settings[key] = value;
}

/** The body to send for ``action``: the editor's, with the organization and the form's settings. */
function requestBody(action) {
  const body = structuredClone(editedBody());
  body.request ??= {};
  // A body this page cannot add to goes as written: the server says what is wrong with it.
  if (typeof body.request !== 'object' || Array.isArray(body.request)) return body;
  if ($('organization').value && !$('organization-field').hidden) {
    body.request.context = { ...body.request.context, organizationId: $('organization').value };
  }
  const settings = { ...body.request.settings };
  if (action === 'summarize') {
    const aspects = [...chosen('aspect'), ...listed($('other-aspects').value)];
    set(settings, 'summaryAspects', aspects);
    set(settings, 'summaryFormat', aspects.length ? null : $('summary-format').value);
    set(settings, 'overrideOutputLanguage', $('summary-language').value);
    set(settings, 'includeEvidence', $('include-evidence').checked || null);
    set(settings, 'disableStream', $('stream-summary').checked ? false : null);
  } else {
    set(settings, 'targetLanguages', [...new Set([...chosen('target'), ...listed($('other-targets').value)])]);
    set(settings, 'overrideOutputLanguage', null);
    set(settings, 'translationMode', document.querySelector('input[name=tier]:checked').value);
    set(settings, 'formality', $('formality').value);
    set(settings, 'glossaryId', $('glossary-id').value.trim());
  }
  body.request.settings = settings;
  return body;
}

// --- what went over the wire -------------------------------------------------------------

function showFacts(facts) {
  $('call-facts').replaceChildren(
    ...Object.entries(facts)
      .filter(([, value]) => value !== null && value !== undefined && value !== '')
      .flatMap(([name, value]) => [element('dt', { text: name }), element('dd', { text: String(value) })]),
  );
}

function showRaw(request, response) {
  if (request !== undefined) $('raw-request').textContent = typeof request === 'string' ? request : JSON.stringify(request, null, 2);
  $('raw-response').textContent = response === undefined ? '' : typeof response === 'string' ? response : JSON.stringify(response, null, 2);
}

function showError(envelope, { retryAfter = null, status = null } = {}) {
  const error = envelope?.error;
  $('error-box').hidden = !error;
  if (!error) return;
  $('error-code').textContent = error.code ?? 'ERROR';
  $('error-message').textContent = error.message ?? '';
  const details = [`retryable: ${error.retryable ? 'yes' : 'no'}`];
  if (retryAfter) details.push(`Retry-After: ${retryAfter} s`);
  if (status) details.push(`HTTP ${status}`);
  $('error-details').textContent = details.join(' · ');
  if (['INVALID_TOKEN', 'TOKEN_EXPIRED', 'MISSING_TOKEN'].includes(error.code)) {
    session.forget();
    state.session = null;
    showSession();
  }
}

const ms = (value) => (value == null ? null : `${Math.round(value)} ms`);

// --- summarize ---------------------------------------------------------------------------

/** The body and token to run ``action`` with, or null: a run under way, a body to fix (the
 * editor says what), or no token (the sign-in form shows). */
function prepared(action) {
  if (state.running) return null;
  let body;
  try {
    body = requestBody(action);
  } catch {
    return null;
  }
  const bearer = token();
  if (!bearer) return null;
  showError(null);
  return { body, bearer };
}

async function summarize() {
  const { body, bearer } = prepared('summarize') ?? {};
  if (!body) return;
  $('summary-output').replaceChildren();
  $('cited-messages').hidden = $('cited-title').hidden = true;
  if ($('stream-summary').checked) await summarizeOverSocket(bearer, body);
  else await summarizeOverRest(bearer, body);
}

async function summarizeOverSocket(bearer, body) {
  const correlationId = newId();
  const frame = { action: 'message', headers: { correlationId, action: 'summarize' }, payload: body };
  const started = performance.now();
  let drafts = 0;
  let firstDraft = null;
  running({ correlationId });
  showRaw(frame);
  showFacts({ transport: 'WebSocket /ws', correlationId });
  const whole = body.request?.settings?.summaryAspects ? ' (aspects come whole, not as drafts)' : '';
  $('summary-state').textContent = `Waiting for the model…${whole}`;
  const final = await socket.request(bearer, correlationId, frame, (reply) => {
    const items = reply?.message?.results?.[0]?.response ?? [];
    if (reply.state === 'started') {
      drafts += 1;
      firstDraft ??= performance.now() - started;
      $('summary-state').textContent = `Draft ${drafts}: the model is writing (not yet checked)…`;
      showSummary(items, body, false);
      showRaw(undefined, reply);
    }
  });
  const total = performance.now() - started;
  running(null);
  showRaw(undefined, final);
  showFacts({ transport: 'WebSocket /ws', correlationId, 'first draft': ms(firstDraft), 'drafts streamed': drafts, 'final answer': ms(total) });
  finishSummary(final, body);
}

async function summarizeOverRest(bearer, body) {
  running({});
  showRaw(body);
  $('summary-state').textContent = 'Waiting for the model…';
  const call = await rest('POST', '/message/summarize', bearer, body);
  running(null);
  showRaw(undefined, call.raw ?? call.envelope);
  showFacts({ transport: 'POST /message/summarize', status: call.status, latency: ms(call.milliseconds), 'X-Correlation-Id': call.correlationId });
  finishSummary(call.envelope, body, call);
}

function finishSummary(envelope, body, call = {}) {
  if (envelope?.state === 'error' || envelope?.error) {
    $('summary-state').textContent = envelope.error?.code === 'REQUEST_CANCELLED' ? 'Cancelled.' : 'Failed: see the error.';
    $('summary-output').querySelectorAll('.draft').forEach((node) => node.classList.add('abandoned'));
    showError(envelope, call);
    return;
  }
  const items = envelope?.message?.results?.[0]?.response ?? [];
  showSummary(items, body, true);
  $('summary-state').textContent = items.some((item) => item.evidence) ? 'Final, checked. Focus a sentence to see the messages it cites.' : 'Final, checked.';
}

/** The summary's items, and the messages their evidence cites under their heading. */
function showSummary(items, body, final) {
  renderSummary($('summary-output'), $('cited-messages'), items, body, final);
  $('cited-title').hidden = $('cited-messages').hidden;
}

function running(request) {
  state.running = request;
  $('summarize-button').disabled = request !== null;
  $('translate-button').disabled = request !== null;
  $('cancel-button').disabled = !request?.correlationId;
}

function cancel() {
  if (!state.running?.correlationId) return;
  socket.cancel(state.running.correlationId);
  $('summary-state').textContent = 'Cancelling…';
}

$('summarize-form').addEventListener('submit', (event) => {
  event.preventDefault();
  summarize();
});
$('cancel-button').addEventListener('click', cancel);

// --- translate ---------------------------------------------------------------------------

async function translate() {
  const { body, bearer } = prepared('translate') ?? {};
  if (!body) return;
  running({});
  showRaw(body);
  $('translate-state').textContent = 'Translating…';
  $('translation-output').replaceChildren();
  const call = await rest('POST', '/message/translate', bearer, body);
  running(null);
  showRaw(undefined, call.raw ?? call.envelope);
  showFacts({ transport: 'POST /message/translate', status: call.status, latency: ms(call.milliseconds), 'X-Correlation-Id': call.correlationId });
  if (call.envelope?.state === 'error' || call.envelope?.error) {
    $('translate-state').textContent = 'Failed: see the error.';
    showError(call.envelope, call);
    return;
  }
  renderTranslations($('translation-output'), call.envelope, body);
  const targets = (call.envelope.message?.results ?? []).map((r) => r.response?.[0]?.targetLanguage).filter(Boolean);
  $('translate-state').textContent = `Translated into ${targets.join(', ')} in ${ms(call.milliseconds)}. Highlighted: what no engine saw.`;
}

$('translate-form').addEventListener('submit', (event) => {
  event.preventDefault();
  translate();
});

// --- languages ---------------------------------------------------------------------------

async function loadLanguages() {
  const bearer = token();
  if (!bearer) return;
  const call = await rest('GET', '/languages', bearer);
  showRaw('GET /languages', call.raw ?? call.envelope);
  showFacts({ transport: 'GET /languages', status: call.status, latency: ms(call.milliseconds) });
  if (call.status !== 200) {
    showError(call.envelope.error ? call.envelope : localError(`HTTP_${call.status}`, 'The languages could not be read.'), call);
    return;
  }
  state.languagesLoaded = true;
  renderLanguages($('languages-table'), $('languages-note'), call.envelope);
  offerLanguages(call.envelope);
}

/** The target and summary lists as the server serves them (read once signed in). */
async function readLanguages() {
  const bearer = session.current()?.token;
  if (!bearer) return;
  const call = await rest('GET', '/languages', bearer);
  if (call.status === 200) offerLanguages(call.envelope);
}

function offerLanguages(answer) {
  summaryLanguages(answer.summary ?? SUMMARY_LANGUAGES);
  // Targets served to every organization: English, and those whose direction from English
  // is labelled good or usable (experimental ones can be typed under Others).
  const served = (answer.languages ?? [])
    .filter((language) => language.code === 'en' || ['good', 'usable'].includes(language.into?.label))
    .map((language) => language.code);
  if (served.length) checkboxes($('target-choices'), 'target', served, chosen('target'));
}

function summaryLanguages(languages) {
  const picked = $('summary-language').value;
  $('summary-language').replaceChildren(
    element('option', { value: '', text: "the conversation's" }),
    ...languages.map((language) => element('option', { value: language, text: language })),
  );
  $('summary-language').value = languages.includes(picked) ? picked : '';
}

$('languages-button').addEventListener('click', loadLanguages);

// --- copy as -----------------------------------------------------------------------------

for (const button of document.querySelectorAll('button.copy')) {
  button.addEventListener('click', async () => {
    const action = state.action === 'translate' ? 'translate' : 'summarize';
    let body;
    try {
      body = requestBody(action);
    } catch {
      return;
    }
    const text = SNIPPETS[button.dataset.snippet](action, body, location.origin);
    $('snippet').hidden = false;
    $('snippet').textContent = text;
    try {
      await navigator.clipboard.writeText(text);
      $('copy-state').textContent = `${button.textContent} copied.`;
    } catch {
      getSelection().selectAllChildren($('snippet'));
      $('copy-state').textContent = 'Selected below: copy it with Ctrl+C.';
    }
  });
}

// --- keyboard ----------------------------------------------------------------------------

document.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    if (state.action === 'translate') translate();
    else summarize();
  } else if (event.key === 'Escape' && state.running?.correlationId) {
    cancel();
  }
});

// --- start -------------------------------------------------------------------------------

checkboxes($('aspect-choices'), 'aspect', ASPECTS, []);
checkboxes($('target-choices'), 'target', TARGETS, ['es']);
summaryLanguages(SUMMARY_LANGUAGES);
readLanguages();
try {
  const draft = JSON.parse(sessionStorage.getItem(DRAFT) ?? 'null');
  if (!draft?.body) throw new Error('no draft');
  showBody(draft.body);
  $(draft.editor === 'json' ? 'tab-json' : 'tab-lines').click();
  $(state.editor).value = draft.text;
} catch {
  loadSample('support');
}
showSession();
document.body.dataset.ready = 'true';
