-- Whether the login is on: an admin may turn it off (LoginTurnedOff) and on again (LoginTurnedOn).
alter table users add column active boolean not null default true;
