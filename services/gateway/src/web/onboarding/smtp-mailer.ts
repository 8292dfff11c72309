import nodemailer from 'nodemailer';
import type { InvitationMailer } from '../admin/invitations-page.js';

/**
 * Invitation emails through the SMTP server of QUARRY_SMTP_URL (nodemailer). The link goes in
 * plain text only: nothing in the message runs or loads anything.
 */
export function createSmtpMailer(options: { url: string; from: string }): InvitationMailer {
  const transport = nodemailer.createTransport(options.url);
  return {
    async send({ to, orgName, link, expiresAt }) {
      await transport.sendMail({
        from: options.from,
        to,
        subject: `You are invited to ${orgName} on Quarry`,
        text: `You are invited to join ${orgName} on Quarry.\n\nOpen this link to accept and choose your password (it works once, until ${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC):\n\n${link}\n`,
      });
    },
  };
}
