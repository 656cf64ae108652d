// Sample chats to start from, written for this page (no evaluation data: its licenses keep
// it out of the product). Each is a whole request body; the page sets the organization.

function body(id, language, conversations) {
  return {
    session: { sessionId: `playground-${id}`, channel: { language }, interface: { type: 'chat' } },
    request: {
      requestId: `playground-${id}`,
      connections: { threadId: `thread-${id}` },
      context: { organizationId: 'org-acme' },
      scope: { conversations },
    },
  };
}

function conversation(conversationId, participants, messages, start) {
  let at = Date.parse(start);
  return {
    conversationId,
    participants: participants.map(([participantId, displayName, role]) => ({ participantId, displayName, role })),
    messages: messages.map(([participantId, content], n) => {
      at += (n ? 35 + ((n * 17) % 50) : 0) * 1000;
      return { participantId, content, timestamp: new Date(at).toISOString() };
    }),
  };
}

export const SAMPLES = {
  support: {
    title: 'Support: a damaged order',
    body: body('support', 'en-US', [
      conversation(
        'conv-support',
        [['u1', 'Maya Chen', 'EndUser'], ['a1', 'Luis', 'Agent']],
        [
          ['u1', 'Hi, my order 58213 arrived with a cracked screen.'],
          ['a1', "Sorry about that, Maya. I can send a replacement or refund the $249."],
          ['u1', 'A replacement, please. Can it arrive before Friday?'],
          ['a1', "Yes: it ships today by express, and I've emailed you a prepaid return label for the broken one."],
          ['u1', 'Great, thanks!'],
        ],
        '2026-03-02T14:05:11Z',
      ),
    ]),
  },
  markdown: {
    title: 'Markdown: steps, links and code',
    body: body('markdown', 'en-US', [
      conversation(
        'conv-markdown',
        [['u7', 'Priya Nair', 'EndUser'], ['a3', 'Tom', 'Agent']],
        [
          ['u7', 'My export to CSV fails with `ERR_QUOTA`. @Tom can you check ticket TCK-20391?'],
          [
            'a3',
            'Hi {{first_name}}, here is the fix:\n\n1. Open **Settings → Storage**\n2. Click *Free up space*\n3. Run `export --all --format=csv` again\n\nDetails: [our guide](https://example.com/help/export?id=7) or write to support@example.com 👍',
          ],
          ['u7', '> Run `export --all --format=csv` again\n\nThat worked, thank you! 🎉'],
        ],
        '2026-05-11T09:12:00Z',
      ),
    ]),
  },
  multilingual: {
    title: 'Multilingual: Spanish, French and English',
    body: body('multilingual', 'en-US', [
      conversation(
        'conv-es',
        [['c1', 'Lucía Gómez', 'EndUser'], ['a2', 'Daniel', 'Agent']],
        [
          ['c1', 'Hola, me cobraron dos veces la factura 7734 de este mes.'],
          ['a2', 'Hi Lucía, sorry about that. I see both charges and I will refund one today.'],
          ['c1', 'Perfecto, muchas gracias.'],
        ],
        '2026-06-20T16:40:00Z',
      ),
      conversation(
        'conv-fr',
        [['c2', 'Julien Moreau', 'EndUser'], ['a2', 'Daniel', 'Agent']],
        [
          ['c2', "Bonjour, je n'arrive pas à changer mon adresse de livraison."],
          ['a2', 'Hello Julien, I have updated it for you. Your next parcel goes to the new address.'],
          ['c2', 'Merci beaucoup !'],
        ],
        '2026-06-20T17:05:00Z',
      ),
    ]),
  },
};
