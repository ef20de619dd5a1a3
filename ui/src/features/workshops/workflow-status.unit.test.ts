import { describe, expect, it } from 'vitest';
import { awaitingConfirmationNote, cancellationStatus, creditingNote, movingNote } from './workflow-status';

const note = (reference: string) => ({ id: `id-${reference}`, reference });

describe('a workshop workflow under way, as the event page says it', () => {
  it('an event that stands says nothing', () => {
    expect(cancellationStatus({ cancelled: false, credits: null })).toBeNull();
  });

  it('a cancelled event with invoices not yet credited counts the credit notes issued of those due', () => {
    expect(
      cancellationStatus({ cancelled: true, credits: { invoices: 5, creditNotes: [note('CN1'), note('CN2')] } }),
    ).toEqual({ text: 'Cancelled — issuing credit notes (2 of 5)', creditNotes: [] });
    expect(cancellationStatus({ cancelled: true, credits: { invoices: 1, creditNotes: [] } })?.text).toBe(
      'Cancelled — issuing credit notes (0 of 1)',
    );
  });

  it('once every invoice is credited, it names the credit notes', () => {
    const creditNotes = [note('CN-OTA00012'), note('CN-OTA00013')];
    const status = cancellationStatus({ cancelled: true, credits: { invoices: 2, creditNotes } });
    expect(status).toEqual({ text: 'Cancelled — credited by ', creditNotes });
    expect(`${status?.text}${status?.creditNotes.map((n) => n.reference).join(', ')}`).toBe(
      'Cancelled — credited by CN-OTA00012, CN-OTA00013',
    );
  });

  it('a cancelled event that billed nobody is simply cancelled', () => {
    expect(cancellationStatus({ cancelled: true, credits: { invoices: 0, creditNotes: [] } })?.text).toBe('Cancelled');
  });

  it('a registration on two events while its move is under way says where from, or where to', () => {
    expect(movingNote({ moving: null })).toBeNull();
    expect(movingNote({ moving: { direction: 'from', eventId: 'a', event: 'Robotics' } })).toBe('Moving from Robotics');
    expect(movingNote({ moving: { direction: 'to', eventId: 'b', event: 'Chess' } })).toBe('Moving to Chess');
  });

  it('a deleted registration names the invoice being credited, or says "its invoice" before it is issued', () => {
    expect(creditingNote({ invoiceRef: 'OTA00042' })).toBe('Deleted — crediting OTA00042');
    expect(creditingNote({ invoiceRef: null })).toBe('Deleted — crediting its invoice');
  });

  it('public bookings awaiting their confirmation say the places they hold and the waiting list they ask for', () => {
    expect(awaitingConfirmationNote({ placesHeld: 0, waitlistRequests: 0 })).toBeNull();
    expect(awaitingConfirmationNote({ placesHeld: 2, waitlistRequests: 0 })).toBe(
      "2 places held, awaiting the parents' confirmation",
    );
    expect(awaitingConfirmationNote({ placesHeld: 1, waitlistRequests: 0 })).toBe(
      "1 place held, awaiting the parents' confirmation",
    );
    expect(awaitingConfirmationNote({ placesHeld: 0, waitlistRequests: 1 })).toBe(
      "1 request for the waiting list, awaiting the parents' confirmation",
    );
    expect(awaitingConfirmationNote({ placesHeld: 3, waitlistRequests: 2 })).toBe(
      "3 places held and 2 requests for the waiting list, awaiting the parents' confirmation",
    );
  });
});
