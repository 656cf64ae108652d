// What no engine sees or changes, found as threadwise/text/protected.py finds it (code spans
// and blocks, URLs, e-mail addresses, @mentions, placeholders, emoji), to highlight it on
// both sides of a translation. tests/api/test_playground_browser.py compares the two.

const WORD = String.raw`[\p{L}\p{N}_]`;
const EMOJI_CHAR = String.raw`\u{1f000}-\u{1faff}\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff\u2190-\u21ff\u3030\u303d\u3297\u3299\u00a9\u00ae\u203c\u2049\u2122\u2139\u24c2\u25aa-\u25fe\u2934\u2935`;
const MODIFIERS = String.raw`[\ufe0f\u{1f3fb}-\u{1f3ff}\u20e3]*`;
const EMOJI = String.raw`(?:[\u{1f1e6}-\u{1f1ff}]{2}|[${EMOJI_CHAR}])${MODIFIERS}(?:\u200d[${EMOJI_CHAR}][\ufe0f\u{1f3fb}-\u{1f3ff}]*)*[\u{e0020}-\u{e007f}]*`;
const KEYCAP = String.raw`[0-9#*]\ufe0f?\u20e3`;
const CODE = String.raw`(?<!\x60)(?<ticks>\x60+)(?!\x60)[\s\S]*?(?<!\x60)\k<ticks>(?!\x60)`;
const URL = String.raw`(?:(?:https?|ftp):\/\/|www\.)[^\s<>"'\x60]+`;
// An address starts where its run of name characters starts (else a long word is rescanned
// from each of its characters).
const EMAIL = String.raw`(?<![\p{L}\p{N}_.+-])[\p{L}\p{N}_.+-]+@[\p{L}\p{N}_-]+(?:\.[\p{L}\p{N}_-]+)+`;
const MENTION = String.raw`(?<![\p{L}\p{N}_@.])@${WORD}(?:[\p{L}\p{N}_.-]*${WORD})?`;
const PLACEHOLDER = [
  String.raw`\{\{[^{}\n]{1,80}\}\}`,
  String.raw`\$\{[^{}\n]{1,80}\}`,
  String.raw`\{[\p{L}\p{N}_.:-]{0,40}\}`,
  String.raw`%(?:\(${WORD}+\))?(?:\d+\$)?[-+0#]?\d*(?:\.\d+)?[sdifuxXcr]`,
  String.raw`(?<![\p{L}\p{N}_:]):(?=[0-9_+-]*[a-z])[a-z0-9_+-]+:(?![\p{L}\p{N}_:])`,
  String.raw`\[[A-Z][A-Z_]{1,30}_\d{1,4}\]`,
].join('|');
const PROTECTED = new RegExp(
  `(?<code>${CODE})|(?<url>${URL})|(?<email>${EMAIL})|(?<mention>${MENTION})` +
    `|(?<placeholder>${PLACEHOLDER})|(?<emoji>${KEYCAP}|${EMOJI})`,
  'gu',
);
// A URL usually does not end with the punctuation of the sentence around it.
const URL_TRAILER = '.,;:!?*_~';

/** [start, end, kind] of each protected span of ``text``, in order (UTF-16 offsets). */
export function protectedSpans(text) {
  const spans = [];
  for (const match of text.matchAll(PROTECTED)) {
    const kind = Object.keys(match.groups).find((name) => match.groups[name] !== undefined);
    const length = kind === 'url' ? urlLength(match[0]) : match[0].length;
    spans.push([match.index, match.index + length, kind]);
  }
  return spans;
}

/** How much of ``url`` is the URL: not the punctuation after it, nor a closing parenthesis it
 * did not open (see https://example.com/a_(b)). One pass from the end: a URL of any length. */
function urlLength(url) {
  const count = (c) => url.split(c).length - 1;
  let unmatched = count(')') - count('(');
  let end = url.length;
  while (end) {
    const last = url[end - 1];
    if (URL_TRAILER.includes(last)) {
      end -= 1;
    } else if (last === ')' && unmatched > 0) {
      end -= 1;
      unmatched -= 1;
    } else {
      break;
    }
  }
  return end;
}

/** ``text`` as DOM nodes, its protected spans in <mark class="protected"> with their kind. */
export function highlighted(text) {
  const fragment = document.createDocumentFragment();
  let at = 0;
  for (const [start, end, kind] of protectedSpans(text)) {
    if (start > at) fragment.append(text.slice(at, start));
    const mark = document.createElement('mark');
    mark.className = `protected ${kind}`;
    mark.title = `${kind}: never sent to an engine`;
    mark.textContent = text.slice(start, end);
    fragment.append(mark);
    at = end;
  }
  if (at < text.length) fragment.append(text.slice(at));
  return fragment;
}
