import styled from '@emotion/styled';
import { LoadState } from '../../../components/load-state';
import { Table, TableWrap, Td, Th, Tr } from '../../../components/table';
import { formatDate, formatMoney } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { fetchLessonLines, type LessonInvoiceAnswer } from '../api';

const Muted = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0.5rem 0' }));

const KIND_LABELS: Record<LessonInvoiceAnswer['lines'][number]['kind'], string> = {
  tuition: 'Lesson',
  'introduction-fee': 'Introduction fee',
  adjustment: 'Adjustment',
  other: 'Line',
};

const load = (id: string, signal: AbortSignal) => fetchLessonLines(id, signal);

/** A lessons invoice's lines as issued: date, child, tutor, duration, rate, amount and VAT; then net, VAT and total. */
export function LessonLines({ id }: { id: string }) {
  const lines = useLoader(load, id);
  return (
    <LoadState state={lines.state} onRetry={lines.retry}>
      {(invoice) => (
        <>
          <TableWrap>
            <Table>
              <caption>Lines of invoice {invoice.reference}</caption>
              <thead>
                <tr>
                  <Th scope="col">Date</Th>
                  <Th scope="col">Line</Th>
                  <Th scope="col">Child</Th>
                  <Th scope="col">Tutor</Th>
                  <Th scope="col">Hours</Th>
                  <Th scope="col">Rate</Th>
                  <Th scope="col">Amount</Th>
                  <Th scope="col">VAT</Th>
                </tr>
              </thead>
              <tbody>
                {invoice.lines.map((line) => (
                  <Tr key={line.lessonId}>
                    <Td nowrap>{formatDate(line.date)}</Td>
                    <Td>
                      {KIND_LABELS[line.kind]}
                      {line.kind === 'adjustment' ? `: ${line.description}` : ''}
                    </Td>
                    <Td>{line.child}</Td>
                    <Td>{line.tutor}</Td>
                    <Td numeric>{line.hours}</Td>
                    <Td numeric>{formatMoney(line.rate)}</Td>
                    <Td numeric>{formatMoney(line.amount)}</Td>
                    <Td numeric>{formatMoney(line.vat)}</Td>
                  </Tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <Th scope="row" colSpan={6}>
                    Net / VAT / Total
                  </Th>
                  <Td numeric data-testid="lessons-net">
                    {formatMoney(invoice.net)}
                  </Td>
                  <Td numeric data-testid="lessons-vat">
                    {formatMoney(invoice.vat)} / {formatMoney(invoice.total)}
                  </Td>
                </tr>
              </tfoot>
            </Table>
          </TableWrap>
          {invoice.tutorBilled.length > 0 ? (
            <Muted>
              Billed by the tutor to the family (not part of this invoice):{' '}
              {invoice.tutorBilled
                .map(
                  (lesson) =>
                    `${formatDate(lesson.date)} ${lesson.child}, ${lesson.hours} h, ${formatMoney(lesson.amount)}`,
                )
                .join('; ')}
            </Muted>
          ) : null}
        </>
      )}
    </LoadState>
  );
}
