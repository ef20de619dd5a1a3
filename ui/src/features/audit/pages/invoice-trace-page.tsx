import type { InvoiceTraceAnswer, TracedLessonView } from '@agency/contracts';
import styled from '@emotion/styled';
import { Link, useParams } from 'react-router-dom';
import { ErrorAlert } from '../../../components/alert';
import { EventsTable, HistoryPanel } from '../../../components/history-panel';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel, SectionHeading } from '../../../components/panel';
import { formatDate, formatMoney, formatPercent } from '../../../lib/format';
import { fetchInvoiceTrace } from '../../../lib/history';
import { useLoader } from '../../../lib/use-loader';

const Agrees = styled.p({ color: '#0f7a3d', fontWeight: 700 });
const Figures = styled.dl({
  display: 'grid',
  gridTemplateColumns: 'max-content 1fr',
  gap: '0.25rem 1rem',
  margin: '0 0 1rem',
  '& dt': { fontWeight: 600 },
  '& dd': { margin: 0 },
});
const Lesson = styled.article(({ theme }) => ({
  borderTop: `1px solid ${theme.colors.border}`,
  padding: '0.75rem 0',
}));
const LessonHeading = styled.h4({ margin: '0 0 0.5rem', fontSize: '1rem' });

const loadTrace = (invoiceId: string, signal: AbortSignal) => fetchInvoiceTrace(invoiceId, signal);

function TracedLesson({ lesson }: { lesson: TracedLessonView }) {
  const { period } = lesson;
  return (
    <Lesson aria-label={`Lesson on ${formatDate(lesson.date)}`}>
      <LessonHeading>
        Lesson on {formatDate(lesson.date)}: {lesson.duration} h at £{formatMoney(lesson.rate)} = £
        {formatMoney(lesson.amount)}
        {lesson.amountEdited ? ' (amount typed in)' : ''}, commission £{formatMoney(lesson.commission)}
      </LessonHeading>
      {lesson.differences.map((difference) => (
        <ErrorAlert key={difference}>{difference}</ErrorAlert>
      ))}
      {period ? (
        <Figures aria-label="Period in force">
          <dt>Period in force</dt>
          <dd>
            {formatDate(period.startDate)} – {period.endDate ? formatDate(period.endDate) : 'ongoing'}
          </dd>
          <dt>Rate</dt>
          <dd>£{formatMoney(period.rate)}</dd>
          <dt>Commission</dt>
          <dd>{formatPercent(period.commissionRate)}</dd>
          <dt>Partner</dt>
          <dd>{formatPercent(period.partnerRate)}</dd>
          <dt>Set by</dt>
          <dd>
            {period.setBy ? `${period.setBy.what} — ${period.setBy.who.name}, ${period.setBy.when}` : 'not found'}
          </dd>
        </Figures>
      ) : null}
      <EventsTable events={lesson.events} caption={`Events of the lesson on ${formatDate(lesson.date)}`} />
    </Lesson>
  );
}

function Trace({ trace }: { trace: InvoiceTraceAnswer }) {
  const { invoice } = trace;
  return (
    <>
      <Panel aria-labelledby="trace-summary">
        <SectionHeading id="trace-summary">
          Invoice {invoice.reference} ({invoice.month})
        </SectionHeading>
        <Figures>
          <dt>Earnings</dt>
          <dd>
            £{formatMoney(invoice.earnings)} (items add up to £{formatMoney(trace.itemsEarnings)})
          </dd>
          <dt>Commission</dt>
          <dd>
            £{formatMoney(invoice.commission)} (items add up to £{formatMoney(trace.itemsCommission)})
          </dd>
          <dt>Generated</dt>
          <dd>
            {invoice.generatedBy.when} by {invoice.generatedBy.who.name}
          </dd>
        </Figures>
        {trace.matches ? (
          <Agrees>Every lesson adds up to its item and every item to the total.</Agrees>
        ) : (
          trace.differences.map((difference) => <ErrorAlert key={difference}>{difference}</ErrorAlert>)
        )}
      </Panel>
      {trace.items.map((item) => (
        <Panel key={item.description} aria-label={item.description}>
          <SectionHeading as="h3">{item.description}</SectionHeading>
          <p>
            Its {item.lessons.length} lessons add up to £{formatMoney(item.lessonsEarnings)}, commission £
            {formatMoney(item.lessonsCommission)}
            {item.matches ? ': they match.' : ': they differ.'}
          </p>
          {item.lessons.map((lesson) => (
            <TracedLesson key={lesson.lessonId} lesson={lesson} />
          ))}
        </Panel>
      ))}
      <HistoryPanel streamId={`invoice-${invoice.tutorId}-${invoice.month}`} />
    </>
  );
}

/** invoice/trace/{invoiceId}: every figure of a tutor's invoice traced to its lessons and the rates that priced them. */
export function InvoiceTracePage() {
  const { invoiceId = '' } = useParams();
  const { state, retry } = useLoader(loadTrace, invoiceId);
  return (
    <>
      <PageHeading title="Invoice trace">
        <Link to="/invoices">Back to invoices</Link>
      </PageHeading>
      <LoadState state={state} onRetry={retry}>
        {(trace) => <Trace trace={trace} />}
      </LoadState>
    </>
  );
}
