import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type SMTPServer as Server, SMTPServer } from 'smtp-server';
import { freePort } from './free-port.js';
import { type PeopleApp, startPeopleApp } from './people-app.js';
import { formBrowser } from './people-browser-forms.js';

// With QUARRY_SMTP_URL the invitation link is emailed too (to a real SMTP server on loopback),
// and the admin still sees it once.

const received: Array<{ to: string[]; data: string }> = [];
let smtp: Server;
let app: PeopleApp;

beforeAll(async () => {
  const port = await freePort();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk.toString('utf8')));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), data });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(port, '127.0.0.1', resolve));
  app = await startPeopleApp({
    seed: true,
    env: { QUARRY_SMTP_URL: `smtp://127.0.0.1:${port}`, QUARRY_SMTP_FROM: 'Quarry <quarry@acme.test>' },
  });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await new Promise<void>((resolve) => (smtp ? smtp.close(resolve) : resolve()));
});

describe('invitation email', () => {
  it('sends the one-time link to the invitee and shows it to the admin', async () => {
    const adam = formBrowser(app.app);
    await adam.signIn('admin@acme.test');
    await adam.get('/app/admin/invitations');
    const created = await adam.post('/app/admin/invitations', { email: 'new@acme.test', role: 'member' });
    expect(created.statusCode).toBe(201);
    expect(created.body).toContain('It was emailed too.');
    const link = /id="invitation-link"[^>]*value="([^"]+)"/.exec(created.body)![1]!;
    expect(received).toHaveLength(1);
    expect(received[0]!.to).toEqual(['new@acme.test']);
    expect(received[0]!.data).toContain('Subject: You are invited to Acme Research on Quarry');
    expect(received[0]!.data.replace(/=\r?\n/g, '')).toContain(link);
  });
});
