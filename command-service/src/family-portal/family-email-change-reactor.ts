import type { FamilyEmailChangeEvent } from '@agency/contracts';
import { client, familyAccess } from '@agency/domain';
import type { Reactor } from '../reactors/reactor';

export const FAMILY_EMAIL_CHANGE = 'family-email-change';

/**
 * An admin's confirmation of a family's new e-mail address is decided on its own stream (one
 * command, one stream); this changes the contact's address on the family's stream. The address
 * is the decision's own (sealed with the family's key). Keyed by the contact: a
 * re-run finds the address already changed and the change records nothing new. A family erased
 * in between has no contact left to change: nothing is done.
 */
export const familyEmailChangeReactor: Reactor = {
  name: FAMILY_EMAIL_CHANGE,
  handles: ['FamilyEmailChangeDecided'],
  async react(event, act) {
    const decided = event as unknown as Extract<FamilyEmailChangeEvent, { type: 'FamilyEmailChangeDecided' }>;
    if (!decided.data.approved) return;
    const { contactId, clientId } = decided.data;
    const step = act(contactId);
    const email = decided.data.email;
    const contacts = await step.load(client.clientStream(clientId), familyAccess.contactsOfFamily);
    const contact = contacts.get(contactId);
    if (!contact || !email || contact.email === email) return;
    await step.run(client.clientStream(clientId), client.clientDecider, {
      type: 'ChangeContactDetails',
      contact: { ...contact, email },
    });
  },
};
