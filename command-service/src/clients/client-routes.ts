import { type ChildBody, childBody, clientActiveBody, contactBody, entityId } from '@agency/contracts';
import { client, contactDetails, todayIn, tutor } from '@agency/domain';
import { HttpError, notFound } from '@agency/platform';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { type CommandContext, type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';
import { readModelLookups } from '../read-model/lookups';

const toChild = (body: ChildBody, id: string) => ({
  id,
  firstName: body.firstName,
  lastName: body.lastName,
  dob: body.dob,
});

export async function clientRoutes(
  app: FastifyInstance,
  { deps, db, timeZone }: { deps: CommandDependencies; db: pg.Pool; timeZone: string },
) {
  const { clientDecider, clientStream } = client;

  const lookups = readModelLookups(db);

  async function clientOfContact(contactId: string): Promise<string> {
    const clientId = await lookups.clientOfContact(contactId);
    if (!clientId) throw notFound('There is no such contact.');
    return clientId;
  }

  async function saveChild(clientId: string, body: ChildBody, { run, newId }: CommandContext) {
    const child = toChild(body, body.id ?? newId());
    await run(
      clientStream(clientId),
      clientDecider,
      body.id ? { type: 'ChangeChildDetails', child } : { type: 'AddChild', child },
    );
    return { child: { ...child, clientId } };
  }

  // A new client is made with its first contact.
  commandRoute(app, deps, {
    url: '/api/clients/contact',
    roles: ['admin'],
    body: contactBody,
    handle: async ({ body }, { run, now, newId }) => {
      const clientId = newId();
      const contact = contactDetails(newId(), body);
      const startDate = todayIn(timeZone, now);
      await run(clientStream(clientId), clientDecider, { type: 'RegisterClient', clientId, startDate, contact });
      return { client: { id: clientId, startDate, active: true }, contact: { ...contact, clientId } };
    },
  });

  commandRoute<typeof contactBody, { clientId: string }>(app, deps, {
    url: '/api/clients/contact/:clientId',
    roles: ['admin'],
    body: contactBody,
    handle: async ({ body, params }, { run, newId }) => {
      const contact = contactDetails(newId(), body);
      await run(clientStream(params.clientId), clientDecider, { type: 'AddContact', contact });
      return { contact: { ...contact, clientId: params.clientId } };
    },
  });

  commandRoute<typeof contactBody, { id: string }>(app, deps, {
    url: '/api/contacts/:id',
    roles: ['admin'],
    body: contactBody,
    handle: async ({ body, params }, { run }) => {
      // The tutor detail's edit-contact link uses this form too.
      const tutorId = await lookups.tutorOfContact(params.id);
      if (tutorId) {
        const { id: _id, dob: _dob, ...details } = contactDetails(params.id, body);
        await run(tutor.tutorStream(tutorId), tutor.tutorDecider, {
          type: 'ChangeTutorDetails',
          contact: { ...details, dob: null },
        });
        return { contact: { ...details, id: params.id, tutorId } };
      }
      const clientId = await clientOfContact(params.id);
      const contact = contactDetails(params.id, body);
      await run(clientStream(clientId), clientDecider, { type: 'ChangeContactDetails', contact });
      return { contact: { ...contact, clientId } };
    },
  });

  commandRoute<typeof childBody, { clientId: string }>(app, deps, {
    url: '/api/clients/child/:clientId',
    roles: ['admin'],
    body: childBody,
    handle: ({ body, params }, context) => saveChild(params.clientId, body, context),
  });

  commandRoute(app, deps, {
    url: '/api/clients/child',
    roles: ['admin'],
    body: childBody,
    handle: ({ body }, context) => {
      if (!body.clientId)
        throw new HttpError(400, 'invalid_input', 'clientId is required', { clientId: 'clientId is required' });
      return saveChild(body.clientId, body, context);
    },
  });

  const setActive = async (clientId: string, active: boolean, run: CommandContext['run']) => {
    const state = await run(clientStream(clientId), clientDecider, { type: 'SetClientActive', active });
    return { client: { id: clientId, active: state.status === 'registered' && state.active } };
  };

  commandRoute<typeof clientActiveBody, { id: string }>(app, deps, {
    url: '/api/clients/active/:id',
    roles: ['admin'],
    body: clientActiveBody,
    handle: ({ body, params }, { run }) => setActive(params.id, body.active, run),
  });

  // "Save client": the only thing a client itself holds that can change is whether it is active.
  commandRoute(app, deps, {
    url: '/api/clients',
    roles: ['admin'],
    body: clientActiveBody.extend({ id: entityId('id is required') }),
    handle: ({ body }, { run }) => setActive(body.id, body.active, run),
  });
}
