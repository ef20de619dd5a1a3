import { emailChangeDecisionBody, familyContactBody, familyEmailChangeBody } from '@agency/contracts';
import { client, familyAccess } from '@agency/domain';
import { forbidden, HttpError, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import { type CommandContext, type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';
import { FAMILY_EMAIL_CHANGE } from './family-email-change-reactor';

const { contactsOfFamily, emailChangeDecider, emailChangeStream } = familyAccess;

const NO_SUCH_CONTACT = 'There is no such contact.';

/**
 * A family corrects its own contacts (docs/family-access.md): a phone or an address is changed at
 * once, with the office's own contact change; a new e-mail address is asked for and changes only
 * when an admin confirms it (`familyEmailChangeReactor`), since it is the address the contact
 * signs in with.
 */
export async function familyContactRoutes(app: FastifyInstance, { deps }: { deps: CommandDependencies }) {
  /** One of the signed-in family's own contacts as its stream holds it; another family's is 404, as an unknown one. */
  async function ownContact(contactId: string, { user, load }: CommandContext) {
    const contactOf = familyAccess.contactOfFamilyUser(user.id);
    if (!contactOf || !user.clientId) throw forbidden();
    const contacts = await load(client.clientStream(user.clientId), contactsOfFamily);
    const contact = contacts.get(contactId);
    if (!contact) throw notFound(NO_SUCH_CONTACT);
    return { clientId: user.clientId, contact };
  }

  commandRoute<typeof familyContactBody, { contactId: string }>(app, deps, {
    url: '/api/family/contact/:contactId',
    roles: ['family'],
    body: familyContactBody,
    handle: async ({ body, params }, context) => {
      const { clientId, contact } = await ownContact(params.contactId, context);
      const changed = { ...contact, address: body.address, postcode: body.postcode, phone: body.phone };
      await context.run(client.clientStream(clientId), client.clientDecider, {
        type: 'ChangeContactDetails',
        contact: changed,
      });
      return {
        contact: { id: changed.id, address: changed.address, postcode: changed.postcode, phone: changed.phone },
      };
    },
  });

  commandRoute<typeof familyEmailChangeBody, { contactId: string }>(app, deps, {
    url: '/api/family/email-change/:contactId',
    roles: ['family'],
    body: familyEmailChangeBody,
    handle: async ({ body, params }, context) => {
      const { clientId, contact } = await ownContact(params.contactId, context);
      if (body.email.toLowerCase() === contact.email.toLowerCase()) {
        const message = 'That is already this contact’s e-mail address.';
        throw new HttpError(400, 'invalid_input', message, { email: message });
      }
      await context.run(emailChangeStream(contact.id), emailChangeDecider, {
        type: 'RequestEmailChange',
        contactId: contact.id,
        clientId,
        email: body.email,
      });
      return { emailChange: { contactId: contact.id, email: body.email, state: 'pending' } };
    },
  });

  commandRoute<typeof emailChangeDecisionBody, { contactId: string }>(app, deps, {
    url: '/api/clients/email-change/decide/:contactId',
    roles: ['admin'],
    body: emailChangeDecisionBody,
    handle: async ({ body, params }, { run, load, settle }) => {
      const asked = await load(emailChangeStream(params.contactId), emailChangeDecider);
      if (asked.status === 'none') throw notFound('This contact has asked for no change of e-mail address.');
      const contacts = await load(client.clientStream(asked.clientId), contactsOfFamily);
      const contact = contacts.get(params.contactId);
      // An erased family's contacts are gone: nothing is left to decide.
      if (!contact) throw notFound(NO_SUCH_CONTACT);
      // Decided twice: refused as a conflict, before anything is written. A retry of this decision
      // finds its own events and gets the state they made.
      const decided = await run(emailChangeStream(params.contactId), emailChangeDecider, {
        type: 'DecideEmailChange',
        contactId: params.contactId,
        clientId: asked.clientId,
        approve: body.approve,
      });
      const approved = decided.status === 'decided' && decided.approved;
      const email = decided.status === 'none' ? '' : decided.email;
      // Confirmed, the contact's address is changed by its reactor on the family's stream: the
      // answer waits for it, so what is read next shows the new address.
      if (approved) await settle([FAMILY_EMAIL_CHANGE]);
      return { emailChange: { contactId: params.contactId, approved, email } };
    },
  });
}
