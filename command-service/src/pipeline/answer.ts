import type { SessionUser } from '@agency/contracts';
import { DomainError } from '@agency/domain';
import { EventReadError, HttpError } from '@agency/platform';
import { ConcurrentChange } from './conflicts';
import type { CommandDependencies } from './dependencies';
import { type CallerViews, viewsFor } from './views';

const STATUS_BY_DOMAIN_CODE: Record<DomainError['code'], number> = {
  invalid: 400,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  locked: 409,
};

/** A refusal as the caller gets it: a broken rule, a lost race or an unreadable event; anything else as it is. */
export function domainToHttp(error: unknown): unknown {
  if (error instanceof ConcurrentChange) {
    return new HttpError(
      409,
      'concurrent_change',
      'Someone else changed this at the same time. Please reload and try again.',
    );
  }
  if (error instanceof DomainError) {
    return new HttpError(STATUS_BY_DOMAIN_CODE[error.code], error.code, error.message, error.fields);
  }
  // An event of the stream it decides on cannot be read (a key or an upcaster is missing): nothing
  // was decided; health and the admin banner name the event.
  if (error instanceof EventReadError) {
    return new HttpError(
      503,
      'unreadable_event',
      'Part of this record cannot be read at the moment, so nothing was changed. The administrator has been told.',
    );
  }
  return error;
}

/**
 * The view a route answers with, asked of the query side in this process as the caller (the same
 * role rules). When the projections lag (`visible: false`) and the view cannot be had yet, the
 * answer goes without it.
 */
export async function askView(
  deps: CommandDependencies,
  user: SessionUser,
  view: (views: CallerViews) => Promise<object>,
  visible: boolean,
) {
  if (!deps.views) throw new Error("This app has no query side to answer a command's view.");
  try {
    return await view(viewsFor(deps.views, user));
  } catch (error) {
    if (!visible) return {};
    throw error;
  }
}
