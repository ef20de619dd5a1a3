-- A registration's place in the order of its event's list (waitlist first come, first served) is
-- numbered from the rows themselves as the events are applied in $all order, not drawn from a
-- sequence: a sequence moves on in a batch that rolls back (a retried batch, a crash), so the live
-- numbers would drift from a rebuild's. Unique, so the next number is one index probe (and the
-- index stays while a rebuild loads).
alter table workshop_registrations alter column seq drop default;
drop sequence workshop_registrations_seq_seq;
create unique index workshop_registrations_seq on workshop_registrations (seq);
