import { ERASED, type TutorEvent, type UserEvent } from '@agency/contracts';
import { defineProjection } from '../projection';

export const usersProjection = defineProjection<UserEvent | TutorEvent>({
  name: 'users',
  version: 4,
  migrations: ['002_users.sql', '041_users_registered_for.sql', '061_users_active.sql'],
  handlers: {
    UserRegistered: (sql, { data: user }) =>
      sql.query(
        'insert into users (id, username, role, tutor_id, name, registered_tutor_id) values ($1, $2, $3, $4, $5, $4)',
        [user.userId, user.username, user.role, user.tutorId, user.name],
      ),
    UserRoleChanged: (sql, { data: change }) =>
      sql.query('update users set role = $2, tutor_id = $3 where id = $1', [
        change.userId,
        change.role,
        change.tutorId,
      ]),
    LoginTurnedOff: (sql, { data }) => sql.query('update users set active = false where id = $1', [data.userId]),
    LoginTurnedOn: (sql, { data }) => sql.query('update users set active = true where id = $1', [data.userId]),
    // An erased tutor's logins read as their events do once the tutor's key is destroyed: those
    // registered for the tutor (whose registration the key sealed), wherever they are linked now.
    TutorErased: (sql, { data: { tutorId } }) =>
      sql.query(
        `update users set name = $2, username = 'erased-' || registered_tutor_id where registered_tutor_id = $1`,
        [tutorId, ERASED],
      ),
  },
});
