// What the server answered, as the page shows it. Every text from the request or the
// server goes in as text (textContent), never as markup.

import { highlighted } from './protected.js';
import { messagesOf } from './transcript.js';

export function element(tag, options = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(options)) {
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key.startsWith('data-') || key.startsWith('aria-') || key === 'role' || key === 'tabindex') node.setAttribute(key, value);
    else node[key] = value;
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

/** The items of a summarize answer; with evidence, each sentence can show what it cites. */
export function renderSummary(container, cited, items, body, final) {
  container.replaceChildren();
  const messages = messagesOf(body);
  const withEvidence = items.some((item) => Array.isArray(item.evidence));
  for (const item of items) {
    const block = element('div', { class: `summary-item${final ? '' : ' draft'}` });
    if (item.aspect) block.append(element('h3', { text: item.aspect }));
    const content = element('p', { class: 'summary-text' });
    if (Array.isArray(item.evidence) && item.evidence.length) {
      item.evidence.forEach((entry, n) => {
        const keys = (entry.messages ?? []).map((m) => `${m.conversationId}#${m.messageIndex}`);
        const sentence = element('span', {
          class: 'sentence',
          tabindex: '0',
          text: entry.sentence,
          title: keys.length ? `Cites ${keys.length} message(s): focus to highlight them` : 'No message shares its words',
          'data-cites': keys.join(' '),
        });
        const highlight = () => markCited(cited, keys);
        sentence.addEventListener('mouseenter', highlight);
        sentence.addEventListener('focus', highlight);
        sentence.addEventListener('click', highlight);
        content.append(sentence, element('sup', { text: String(n + 1) }), n + 1 < item.evidence.length ? ' ' : '');
      });
    } else {
      content.textContent = item.content ?? '';
    }
    block.append(content);
    // The structured parts, as badges (the raw response has them whole).
    const parts = [
      item.label && `label: ${item.label}`,
      ...(item.steps ?? []).map((step) => `owner: ${step.owner ?? 'none named'}`),
      ...(item.entities ?? []).map((entity) => `${entity.kind}: ${entity.text}`),
    ].filter(Boolean);
    if (parts.length) block.append(element('p', {}, ...parts.map((text) => element('span', { class: 'badge', text }))));
    const facts = [item.language, item.engine].filter(Boolean);
    if (facts.length) block.append(element('p', { class: 'muted small', text: facts.join(' · ') }));
    container.append(block);
  }
  cited.replaceChildren();
  cited.hidden = !(final && withEvidence);
  if (cited.hidden) return;
  const citing = new Map();
  for (const item of items) {
    (item.evidence ?? []).forEach((entry, n) => {
      for (const m of entry.messages ?? []) {
        const key = `${m.conversationId}#${m.messageIndex}`;
        citing.set(key, [...(citing.get(key) ?? []), `${item.aspect ? `${item.aspect} ` : ''}${n + 1}`]);
      }
    });
  }
  for (const message of messages) {
    const key = `${message.conversationId}#${message.index}`;
    const by = citing.get(key);
    cited.append(
      element(
        'li',
        { class: by ? 'cited' : '', 'data-key': key },
        element('strong', { text: `${message.speaker}: ` }),
        message.content,
        by ? element('span', { class: 'badge', text: `sentence ${by.join(', ')}` }) : null,
      ),
    );
  }
}

function markCited(cited, keys) {
  const wanted = new Set(keys);
  for (const item of cited.children) item.classList.toggle('highlight', wanted.has(item.dataset.key));
}

/** A badge for an engine: the fast fallback, an unapplied formality and "none" marked. */
export function engineBadge(engine) {
  const name = String(engine ?? '');
  const fallback = /\(fast fallback: ([^)]*)\)/.exec(name);
  const badge = element('span', { class: 'badge engine', text: name.replace(/\s*\(.*$/, '') || 'unknown' });
  const badges = [badge];
  if (name === 'none') {
    badge.textContent = 'unchanged';
    badge.title = 'Already in the target language, nothing to translate, or no fast engine for this direction';
  }
  if (fallback) badges.push(element('span', { class: 'badge fallback', text: 'fast fallback', title: fallback[1] }));
  if (name.includes('(formality not applied)')) badges.push(element('span', { class: 'badge warning', text: 'formality not applied' }));
  return badges;
}

/** Source messages with each target language's translation beside them. */
export function renderTranslations(table, envelope, body) {
  table.replaceChildren();
  const results = envelope?.message?.results ?? [];
  const messages = messagesOf(body);
  const targets = results.map((result) => result.response?.[0]?.targetLanguage ?? '?');
  table.append(
    element('thead', {}, element('tr', {}, element('th', { text: 'Message' }), ...targets.map((t) => element('th', { text: t })))),
  );
  const rows = element('tbody');
  messages.forEach((message, n) => {
    const source = results[0]?.response?.[n];
    const detected = source?.sourceLanguage;
    const first = element(
      'td',
      { 'data-label': 'Message' },
      element('div', { class: 'speaker' }, element('strong', { text: message.speaker }), detected ? element('span', { class: 'badge language', text: detected, title: 'Detected language' }) : null),
      element('div', { class: 'text' }, highlighted(message.content)),
    );
    const cells = results.map((result, k) => {
      const item = result.response?.[n];
      if (!item) return element('td', { 'data-label': targets[k], class: 'muted', text: '—' });
      return element(
        'td',
        { 'data-label': targets[k] },
        element('div', { class: 'text' }, highlighted(String(item.content ?? ''))),
        element('div', { class: 'badges' }, ...engineBadge(item.engine)),
      );
    });
    rows.append(element('tr', {}, first, ...cells));
  });
  table.append(rows);
}

/** GET /languages as a table: each language with the label and chrF of its directions from
 * and into English (each direction's engines and figures are in the raw answer). */
export function renderLanguages(table, note, answer) {
  const labelled = (way) =>
    way?.label ? `${way.label} · chrF ${way.chrF}` : way?.chrF != null ? `not served · chrF ${way.chrF}` : 'not measured';
  const cell = (heading, way) =>
    element('td', { 'data-label': heading }, element('span', { class: `badge label ${way?.label ?? 'none'}`, text: labelled(way) }));
  const languages = (answer.languages ?? []).filter((language) => language.code !== 'en');
  table.replaceChildren(
    element('thead', {}, element('tr', {}, ...['Language', 'English → it', 'It → English'].map((t) => element('th', { text: t })))),
    element(
      'tbody',
      {},
      ...languages.map((language) =>
        element(
          'tr',
          {},
          element('td', { 'data-label': 'Language', text: `${language.code} · ${language.name}` }),
          cell('English → it', language.into),
          cell('It → English', language.from),
        ),
      ),
    ),
  );
  const thresholds = answer.labels?.thresholds ?? {};
  const scale = Object.entries(thresholds).map(([label, chrF]) => `${label} from chrF ${chrF}`).join(', ');
  const measured = answer.measuredOn?.date ? ` Measured ${answer.measuredOn.date} on NTREX-128 news sentences.` : '';
  note.textContent = `Summaries in ${(answer.summary ?? []).join(', ')}. Labels: ${scale}; experimental languages only where the organization allows them.${measured} ${(answer.translation ?? []).length} directions, with each tier's engine and figures, in the raw answer.`;
}
