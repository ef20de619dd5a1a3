import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyReply, FastifySchemaCompiler } from 'fastify';
import fp from 'fastify-plugin';
import { createJsonSchemaTransform } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { invalidInput } from './http-errors';

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
 * `fastify-type-provider-zod`'s `ZodTypeProvider`), and the same schemas describe the whole API
 * (commands and queries) in one OpenAPI document, served by `apiDocs`. Answers are sent as the handler made them: a
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
    // The UI's files are no API route.
    transform: createJsonSchemaTransform({ skipList: ['/*'] }),
  });
});

/**
 * Sent as text: a description names the fields of the answers (a tutor's answers leave out the
 * partner's share) but holds no one's data, so the answers' field rule (`fieldVisibility`, which
 * works on objects) is not for it.
 */
const sendDescription = (reply: FastifyReply, description: unknown) =>
  reply.type('application/json; charset=utf-8').send(JSON.stringify(description));

/**
 * `/api/docs`: Swagger UI over the whole API, and its OpenAPI document at `/api/docs/json`
 * (registered after the routes it describes).
 */
export const apiDocs = fp(async (app: FastifyInstance) => {
  await app.register(fastifySwaggerUi, {
    routePrefix: '/api/docs',
    uiHooks: {
      // Sent as text by `sendDescription`, past the answers' field rule.
      onRequest: async (request, reply) => {
        if (request.url.split('?')[0]?.endsWith('/json')) return sendDescription(reply, app.swagger());
      },
    },
  });
});
