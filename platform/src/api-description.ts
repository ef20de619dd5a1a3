import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifySchemaCompiler } from 'fastify';
import fp from 'fastify-plugin';
import { createJsonSchemaTransform } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { invalidInput } from './http-errors';

/** Where a service's own description is served (the front door merges them at /api/docs/json). */
export const SERVICE_DESCRIPTION_URL = '/api/docs/service.json';

/** An OpenAPI document, as far as merging needs to know it. */
type Description = {
  paths?: Record<string, unknown>;
  components?: { schemas?: Record<string, unknown>; [part: string]: unknown };
  [field: string]: unknown;
};

/**
 * A route's zod schemas (`querystring`, `params`) check the request: a mismatch is a 400 with the
 * product's error body (`invalid_input`, a message per field), and the handler gets the parsed
 * (coerced) values.
 */
const zodValidator: FastifySchemaCompiler<z.ZodType> =
  ({ schema }) =>
  (data) => {
    const parsed = schema.safeParse(data);
    return parsed.success ? { value: parsed.data } : { error: invalidInput(parsed.error.issues) };
  };

/**
 * For a route whose handler parses the input itself (the command pipeline, which authenticates
 * and authorises first): the schema describes the route and checks nothing here.
 */
export const describeOnly: FastifySchemaCompiler<unknown> = () => (data) => ({ value: data });

/**
 * The options of a POST route whose handler parses its body itself (after a throttle, a session
 * check or a role check): the body's schema is in the description and checks nothing here.
 */
export const describedBody = (body: z.ZodType) => ({ schema: { body }, validatorCompiler: describeOnly });

/**
 * Routes declare their parameters and answers as the `contracts` zod schemas (typed through
 * `fastify-type-provider-zod`'s `ZodTypeProvider`), and the same schemas describe the service in
 * OpenAPI, served at `SERVICE_DESCRIPTION_URL`. Answers are sent as the handler made them: a
 * response schema describes and types the answer (tests parse answers with it) but never
 * reshapes it, so no field a client reads can be dropped by a serializer.
 */
export const apiDescription = fp(async (app: FastifyInstance, options: { title: string }) => {
  app.setValidatorCompiler(zodValidator);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(fastifySwagger, {
    openapi: {
      info: { title: options.title, version: '1' },
      components: {
        securitySchemes: {
          token: { type: 'apiKey', in: 'cookie', name: 'token' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ token: [] }, { bearer: [] }],
    },
    // The front door's catch-alls (the query proxy, the UI's files) are no API routes of their own.
    transform: createJsonSchemaTransform({ skipList: ['/api', '/api/', '/api/*', '/*'] }),
  });
  app.get(SERVICE_DESCRIPTION_URL, { schema: { hide: true } }, async (_request, reply) =>
    sendDescription(reply, app.swagger()),
  );
});

/**
 * Sent as text: a description names the fields of the answers (a tutor's answers leave out the
 * partner's share) but holds no one's data, so the answers' field rule (`fieldVisibility`, which
 * works on objects) is not for it.
 */
const sendDescription = (reply: FastifyReply, description: unknown) =>
  reply.type('application/json; charset=utf-8').send(JSON.stringify(description));

/** One description from several services' (paths and component schemas together). */
export function mergeDescriptions(first: Description, ...others: Description[]): Description {
  const paths = { ...first.paths };
  const schemas = { ...first.components?.schemas };
  for (const other of others) {
    for (const [path, item] of Object.entries(other.paths ?? {})) {
      paths[path] = { ...(item as object), ...(paths[path] as object | undefined) };
    }
    for (const [name, schema] of Object.entries(other.components?.schemas ?? {})) schemas[name] ??= schema;
  }
  return { ...first, paths, components: { ...first.components, schemas } };
}

/**
 * The front door's `/api/docs`: Swagger UI over the whole API in one OpenAPI description, its own
 * routes and the query service's (fetched from `upstream` when asked), at `/api/docs/json`.
 */
export const apiDocs = fp(async (app: FastifyInstance, options: { upstream: string; title: string }) => {
  const whole = async () => {
    const response = await fetch(new URL(SERVICE_DESCRIPTION_URL, options.upstream));
    if (!response.ok) throw new Error(`The query service's description answered ${response.status}.`);
    const own = { ...(app.swagger() as Description), info: { title: options.title, version: '1' } };
    return mergeDescriptions(own, (await response.json()) as Description);
  };
  await app.register(fastifySwaggerUi, {
    routePrefix: '/api/docs',
    uiHooks: {
      // The UI's own /json and /yaml routes would send this service's half: the whole is sent here.
      onRequest: async (request, reply) => {
        const path = request.url.split('?')[0];
        if (path.endsWith('/yaml')) return reply.redirect('/api/docs/json');
        if (path.endsWith('/json')) return sendDescription(reply, await whole());
      },
    },
  });
});
