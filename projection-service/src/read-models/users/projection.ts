import type { UserRegistered, UserRoleChanged } from '@agency/contracts';
import type { z } from 'zod';
import type { Projection } from './projection';

type Registered = z.infer<typeof UserRegistered.schema>;
type RoleChanged = z.infer<typeof UserRoleChanged.schema>;

export const usersProjection: Projection = {
  name: 'users',
  version: 1,
  migrations: ['002_users.sql'],
  handlers: {
    UserRegistered: (sql, { data }) => {
      const user = data as Registered;
      return sql.query('insert into users (id, username, role, tutor_id, name) values ($1, $2, $3, $4, $5)', [
        user.userId,
        user.username,
        user.role,
        user.tutorId,
        user.name,
      ]);
    },
    UserRoleChanged: (sql, { data }) => {
      const change = data as RoleChanged;
      return sql.query('update users set role = $2, tutor_id = $3 where id = $1', [
        change.userId,
        change.role,
        change.tutorId,
      ]);
    },
  },
};
