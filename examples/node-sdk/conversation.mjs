// The request params both scripts send: the SDK's generated example, with its non-UUID ids,
// and what threadwise needs to know (an organization of the client, a target language).
export const config = {
  url: process.env.THREADWISE_URL ?? 'http://127.0.0.1:8000',
  clientId: process.env.THREADWISE_CLIENT_ID,
  clientSecret: process.env.THREADWISE_CLIENT_SECRET,
  organization: process.env.THREADWISE_ORG ?? 'org-acme',
};

export function params(requestId, settings = {}) {
  return {
    headers: { timestamp: new Date().toISOString(), networkLatencyMs: 120 },
    session: {
      sessionId: 'a1b2c3e6-e5f6-7890-1234-56789abcdef0',
      channel: { language: 'en-US', medium: 'chat', section: 'support_page' },
      interface: { category: 'crm', name: 'my_support_app', type: 'custom_components' },
    },
    request: {
      requestId,
      attributes: { variant: 'a' },
      connections: { threadId: '9e8d3c6b-5a4f-3e2d-1c0b-0987654321ab' },
      context: { organizationId: config.organization },
      scope: {
        conversations: [
          {
            conversationId: 'conv-678',
            participants: [
              { participantId: '2c4f8a9b-1d3e-5f70-8293-456789012def', displayName: 'John Doe', role: 'user' },
              { participantId: '5b8c9d0e-2f4a-6b1c-9d8e-123456789xyz', displayName: 'Sarah Smith', role: 'operator' },
            ],
            messages: [
              {
                content: `Hi, my order ${requestId.slice(-4)} arrived broken. Can you help me?`,
                participantId: '2c4f8a9b-1d3e-5f70-8293-456789012def',
                timestamp: '2024-01-15T10:30:00.000Z',
              },
              {
                content: "I'm sorry! I have sent you a replacement today.",
                participantId: '5b8c9d0e-2f4a-6b1c-9d8e-123456789xyz',
                timestamp: '2024-01-15T10:30:15.000Z',
              },
            ],
          },
        ],
      },
      settings,
    },
  };
}

// Several requests in flight on one socket: one summary and three translations.
export function requests(transport) {
  const tag = transport === 'query' ? 'q' : 's';
  return [
    ['summarize', params(`89012345-6789-0123-456789ab${tag}001`)],
    ...['es-ES', 'fr-FR', 'pt-BR'].map((language, n) => [
      'translate',
      params(`89012345-6789-0123-456789ab${tag}10${n}`, { overrideOutputLanguage: language, translationMode: 'fast' }),
    ]),
  ];
}

// What every completed reply must look like to the SDK (docs/protocol/client.md §4).
export function check(action, requestId, frame) {
  const problems = [];
  if (frame.headers?.correlationId !== requestId) problems.push('headers.correlationId not echoed');
  if (frame.correlationId !== requestId) problems.push('correlationId not echoed');
  if (frame.action !== 'superpower') problems.push(`action ${frame.action}`);
  if (frame.actionType !== action) problems.push(`actionType ${frame.actionType}`);
  if (frame.state !== 'completed') problems.push(`state ${frame.state}: ${frame.error?.message}`);
  if ('error' in frame || 'payload' in frame) problems.push('error or payload key on a success');
  const content = frame.message?.results?.[0]?.response?.[0]?.content;
  if (!content) problems.push('no content');
  if (problems.length) throw new Error(`${action} ${requestId}: ${problems.join('; ')}`);
  return content;
}
