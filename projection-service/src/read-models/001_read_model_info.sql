-- The fingerprint of the read models a full build made (readModelVersion in migrations.ts): a
-- start compares it with its own to tell whether the live read models are current or must be
-- rebuilt. Made in a full build's schema only; a one-projection rebuild keeps the live one's.
create table read_model_info (version text not null);
