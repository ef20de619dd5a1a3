import { reminderScheduleBody } from '@agency/contracts';
import { reminder, toPence, toPounds } from '@agency/domain';
import type { FastifyInstance } from 'fastify';
import { type CommandDependencies, commandRoute } from '../pipeline/command-pipeline';

/** `POST /api/agency/reminders`: the settings screen saves the reminder schedule and late fee (admins only). */
export async function reminderRoutes(app: FastifyInstance, { deps }: { deps: CommandDependencies }) {
  commandRoute(app, deps, {
    url: '/api/agency/reminders',
    roles: ['admin'],
    body: reminderScheduleBody,
    handle: async ({ body }, { run, user }) => {
      const saved = await run(reminder.scheduleStream(), reminder.scheduleDecider, {
        type: 'SetReminderSchedule',
        schedule: { days: body.days, lateFeePence: toPence(body.lateFee, 'Late fee') },
        actor: { role: user.role, tutorId: user.tutorId },
      });
      return { reminders: { days: [...saved.days], lateFee: toPounds(saved.lateFeePence) } };
    },
  });
}
