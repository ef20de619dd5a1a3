import type { FamilyEmailChangeEvent } from '@agency/contracts';
import { client, familyAccess } from '@agency/domain';
import type { Reactor } from '../reactors/reactor';

export const FAMILY_EMAIL_CHANGE = 'family-email-change';

/**
 * An admin's confirmation of a family's new e-mail address is decided on its own stream (one
 * command, one stream); this changes the contact's address on the family's stream. The address
 * is read from the request's stream (sealed there with the family's key). Keyed by the contact: a
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
    const asked = await step.load(familyAccess.emailChangeStream(contactId), familyAccess.emailChangeDecider);
    // The stream's latest decision is the one that counts: a later request may be waiting again.
    if (asked.status !== 'decided' || !asked.approved || !asked.email) return;
    const contacts = await step.load(client.clientStream(clientId), familyAccess.contactsOfFamily);
    const contact = contacts.get(contactId);
    if (!contact || contact.email === asked.email) return;
    await step.run(client.clientStream(clientId), client.clientDecider, {
      type: 'ChangeContactDetails',
      contact: { ...contact, email: asked.email },
    });
  },
};
