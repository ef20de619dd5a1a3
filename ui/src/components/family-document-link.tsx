import styled from '@emotion/styled';
import { familyDocumentUrl } from '../lib/family-invoices';

const Link = styled.a(({ theme }) => ({ color: theme.colors.primary, fontWeight: 600 }));

/** A family invoice's or credit note's reference, opening its PDF in a new tab (the session cookie opens it). */
export function FamilyDocumentLink({ id, reference }: { id: string; reference: string }) {
  return (
    <Link href={familyDocumentUrl(id)} target="_blank" rel="noopener">
      {reference}
    </Link>
  );
}
