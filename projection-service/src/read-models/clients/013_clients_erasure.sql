-- An erased family's children keep their rows (lessons and engagements name them) without a date of birth.
alter table children alter column dob drop not null;
