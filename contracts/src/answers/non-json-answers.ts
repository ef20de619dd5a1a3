import { z } from 'zod';

/**
 * An answer that is not JSON (a PDF opened in a new tab, a zip to download, a stream of
 * server-sent events), declared by its media type so the API description names what comes back.
 * Its body is bytes (or text), as the handler sends it: described as a string, typed as unknown.
 */
export const nonJsonAnswer = (mediaType: string, description: string) => ({
  description,
  content: {
    [mediaType]: {
      schema: z
        .unknown()
        .meta(mediaType.startsWith('text/') ? { type: 'string' } : { type: 'string', format: 'binary' }),
    },
  },
});

export const pdfAnswer = (description: string) => nonJsonAnswer('application/pdf', description);
