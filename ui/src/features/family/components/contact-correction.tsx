import type { FamilyDetailsAnswer } from '@agency/contracts';
import { useState } from 'react';
import { Button, ButtonRow } from '../../../components/button';
import { TextField } from '../../../components/text-field';
import { errorMessage, type FieldErrors, HttpError } from '../../../lib/http';
import { askForEmailChange, correctContact } from '../api';

type Contact = FamilyDetailsAnswer['family']['contacts'][number];

/** The address lines a family can fill in, by place. */
const ADDRESS_LINES = [0, 1, 2] as const;

const fieldsOf = (error: unknown): FieldErrors => (error instanceof HttpError ? (error.fields ?? {}) : {});

/**
 * A family's own correction of one contact: its phone and address are changed at once; a new
 * e-mail address is asked for, and stays the old one until the agency confirms it (it is the
 * address the family signs in with).
 */
export function ContactCorrection({ contact, onSaved }: { contact: Contact; onSaved: () => void }) {
  const id = contact.id;
  const [open, setOpen] = useState(false);
  const [phone, setPhone] = useState(contact.phone[0]?.number ?? '');
  const [lines, setLines] = useState([contact.address[0] ?? '', contact.address[1] ?? '', contact.address[2] ?? '']);
  const [postcode, setPostcode] = useState(contact.postcode);
  const [email, setEmail] = useState('');
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<{ message: string; fields: FieldErrors } | null>(null);
  const [asked, setAsked] = useState<string | null>(null);
  // One id per attempt of each action: a retry after a lost answer is the same command.
  const [saveId, setSaveId] = useState(() => crypto.randomUUID());
  const [emailId, setEmailId] = useState(() => crypto.randomUUID());

  const save = async () => {
    setSaving(true);
    setFailure(null);
    try {
      await correctContact(id, {
        commandId: saveId,
        address: lines,
        postcode,
        // The other numbers are kept; the first is the one corrected here.
        phone: [{ type: contact.phone[0]?.type ?? 'Home', number: phone }, ...contact.phone.slice(1)],
      });
      setSaveId(crypto.randomUUID());
      setOpen(false);
      onSaved();
    } catch (error) {
      if (error instanceof HttpError && error.status < 500) setSaveId(crypto.randomUUID());
      setFailure({ message: errorMessage(error), fields: fieldsOf(error) });
    } finally {
      setSaving(false);
    }
  };

  const askEmail = async () => {
    setSaving(true);
    setFailure(null);
    try {
      await askForEmailChange(id, { commandId: emailId, email });
      setEmailId(crypto.randomUUID());
      setAsked(email);
      setEmail('');
    } catch (error) {
      if (error instanceof HttpError && error.status < 500) setEmailId(crypto.randomUUID());
      setFailure({ message: errorMessage(error), fields: fieldsOf(error) });
    } finally {
      setSaving(false);
    }
  };

  const fields = failure?.fields ?? {};
  return (
    <>
      {asked ? (
        <p role="status">
          We have your new e-mail address ({asked}). Until the agency confirms it, we keep writing to {contact.email}.
        </p>
      ) : null}
      {open ? (
        <form
          aria-label={`Correct ${contact.firstName}'s details`}
          onSubmit={(event) => {
            event.preventDefault();
            save();
          }}
        >
          <TextField
            id={`${id}-phone`}
            label="Phone"
            type="tel"
            value={phone}
            required
            error={fields.phone}
            onChange={(event) => setPhone(event.target.value)}
          />
          {ADDRESS_LINES.map((index) => (
            <TextField
              key={index}
              id={`${id}-address-${index}`}
              label={`Address line ${index + 1}`}
              value={lines[index]}
              required={index === 0}
              error={index === 0 ? fields.address : undefined}
              onChange={(event) => setLines(lines.map((old, at) => (at === index ? event.target.value : old)))}
            />
          ))}
          <TextField
            id={`${id}-postcode`}
            label="Postcode"
            value={postcode}
            required
            error={fields.postcode}
            onChange={(event) => setPostcode(event.target.value)}
          />
          <ButtonRow>
            <Button type="submit" disabled={saving}>
              Save
            </Button>
            <Button type="button" variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
          </ButtonRow>
          <TextField
            id={`${id}-email`}
            label="New e-mail address"
            type="email"
            value={email}
            error={fields.email}
            onChange={(event) => setEmail(event.target.value)}
          />
          <ButtonRow>
            <Button type="button" variant="secondary" disabled={saving || !email} onClick={askEmail}>
              Ask to Change E-mail
            </Button>
          </ButtonRow>
        </form>
      ) : (
        <Button type="button" variant="secondary" onClick={() => setOpen(true)}>
          Correct {contact.firstName}'s Details
        </Button>
      )}
      {failure ? <p role="alert">{failure.message}</p> : null}
    </>
  );
}
