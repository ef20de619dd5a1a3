-- The tutor a login was registered for: its name and username are that tutor's personal data
-- (sealed under the tutor's key) for good, whoever the login is linked to later.
alter table users add column registered_tutor_id text;
create index users_registered_tutor on users (registered_tutor_id);
