// A conversation as lines people write ("Name (role): text") and as the request body, both
// ways. Writing lines back into a body keeps what the lines cannot show (participant ids,
// timestamps, settings) from the body they were made from.

const MESSAGE = /^(?<name>[^\s#:()][^:()]*?)\s*(?:\((?<role>[^()]*)\))?\s*:(?: |$)(?<text>.*)$/u;
const CONVERSATION = /^#\s*(?<id>\S.*?)\s*$/u;

/** The body's conversations as lines. */
export function toLines(body) {
  const conversations = arrayOf(body?.request?.scope?.conversations);
  const lines = [];
  conversations.forEach((conversation, n) => {
    if (conversations.length > 1) {
      if (lines.length) lines.push('');
      lines.push(`# ${conversation?.conversationId ?? `conversation-${n + 1}`}`);
    }
    const people = new Map(arrayOf(conversation?.participants).map((p) => [p?.participantId, p]));
    for (const message of arrayOf(conversation?.messages)) {
      const person = people.get(message?.participantId);
      const name = speakerName(person, message?.participantId);
      const role = person?.role ? ` (${String(person.role).replace(/[()]/g, '')})` : '';
      const [first, ...rest] = String(message?.content ?? '').split('\n');
      lines.push(`${name}${role}: ${first}`);
      for (const line of rest) lines.push(line ? `  ${line}` : '  ');
    }
  });
  return lines.join('\n');
}

/** ``value`` if it is an array, else none: the lines show what a body has of the contract. */
const arrayOf = (value) => (Array.isArray(value) ? value : []);

function speakerName(person, participantId) {
  const name = String(person?.displayName || participantId || 'Someone').replace(/[:()\n]/g, ' ').trim();
  return name.replace(/^#+/, '').trim() || 'Someone';
}

/** Every message of the body, in order, with where it is: conversation, index, speaker. */
export function messagesOf(body) {
  const found = [];
  for (const conversation of arrayOf(body?.request?.scope?.conversations)) {
    const people = new Map(arrayOf(conversation?.participants).map((p) => [p?.participantId, p]));
    arrayOf(conversation?.messages).forEach((message, index) => {
      const person = people.get(message?.participantId);
      found.push({
        conversationId: conversation.conversationId ?? '',
        index,
        speaker: person?.displayName || message?.participantId || 'Someone',
        role: person?.role ?? '',
        content: String(message?.content ?? ''),
      });
    });
  }
  return found;
}

/** Parse lines into conversations of {name, role, text}; throws an Error naming the line. */
export function parseLines(text) {
  const conversations = [];
  let conversation = null;
  let message = null;
  let blanks = 0;
  const start = (id) => {
    conversation = { id, messages: [] };
    conversations.push(conversation);
    message = null;
  };
  text.split(/\r?\n/).forEach((line, n) => {
    const header = CONVERSATION.exec(line);
    if (header) {
      start(header.groups.id);
      return;
    }
    if (!line.trim()) {
      blanks += 1;
      return;
    }
    const continued = /^[ \t]/.test(line) ? line.replace(/^(?: {1,2}|\t)/, '') : null;
    const said = continued === null ? MESSAGE.exec(line) : null;
    if (said) {
      if (!conversation) start(null);
      message = { name: said.groups.name.trim(), role: said.groups.role?.trim() || null, text: said.groups.text };
      conversation.messages.push(message);
    } else if (message) {
      message.text += '\n'.repeat(blanks + 1) + (continued ?? line);
    } else {
      throw new Error(`Line ${n + 1}: start a message with "Name (role): text", e.g. "Maya (customer): Hi".`);
    }
    blanks = 0;
  });
  for (const each of conversations) {
    for (const m of each.messages) m.text = m.text.replace(/^\n+|\s+$/g, '');
  }
  return conversations.filter((each) => each.messages.length);
}

/** The body with its conversations replaced by those of ``text``, keeping what it can. */
export function fromLines(text, body) {
  const parsed = parseLines(text);
  if (!parsed.length) throw new Error('Write at least one message, e.g. "Maya (customer): Hi".');
  const result = structuredClone(body ?? {});
  result.request ??= {};
  result.request.scope ??= {};
  const before = result.request.scope.conversations ?? [];
  result.request.scope.conversations = parsed.map((conversation, n) => {
    const previous = before.find((c) => conversation.id && c.conversationId === conversation.id) ?? before[n] ?? {};
    return rebuilt(conversation, previous, n);
  });
  return result;
}

function rebuilt(conversation, previous, n) {
  const participants = [];
  const ids = new Map();
  const known = previous.participants ?? [];
  for (const { name, role } of conversation.messages) {
    if (ids.has(name)) continue;
    const match = known.find((p) => speakerName(p, p.participantId) === name);
    const participant = match ? { ...match } : { participantId: freeId(name, participants, known), displayName: name };
    if (role) participant.role = role;
    ids.set(name, participant.participantId);
    participants.push(participant);
  }
  const messages = conversation.messages.map(({ name, text }, i) => {
    const old = previous.messages?.[i];
    const participantId = ids.get(name);
    const kept = old && old.participantId === participantId ? { ...old } : {};
    return { ...kept, participantId, content: text };
  });
  const { participants: _p, messages: _m, ...rest } = previous;
  return { ...rest, conversationId: conversation.id ?? previous.conversationId ?? `conv-${n + 1}`, participants, messages };
}

function freeId(name, participants, known) {
  const base = name.toLowerCase().normalize('NFKD').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'p';
  const taken = new Set([...participants, ...known].map((p) => p.participantId));
  let id = base;
  for (let k = 2; taken.has(id); k += 1) id = `${base}-${k}`;
  return id;
}
