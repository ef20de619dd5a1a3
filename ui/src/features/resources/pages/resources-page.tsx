import styled from '@emotion/styled';
import { FactList } from '../../../components/contact-values';
import { LoadState } from '../../../components/load-state';
import { PageHeading } from '../../../components/page-heading';
import { Panel, SectionHeading } from '../../../components/panel';
import { fetchAgencyDetails } from '../../../lib/agency-details';
import { productVersion } from '../../../lib/product-version';
import { useLoader } from '../../../lib/use-loader';

const Topics = styled.ul({ margin: 0, paddingLeft: '1.25rem', '& li': { marginBottom: '0.35rem' } });
const Help = styled.section({ marginTop: '1.25rem', '& h3': { fontSize: '1.05rem', margin: '0 0 0.35rem' } });

const loadAgency = (_: null, signal: AbortSignal) => fetchAgencyDetails(signal);

/** The help text, one topic a section; the list of links at the top of the panel leads to each. */
const topics: { id: string; title: string; text: string }[] = [
  {
    id: 'help-selection',
    title: 'Choosing a tutor and a month',
    text: 'Lessons, Invoices and the invoice status report share one choice of tutor, year and month. It is kept in the address, so a reload or a copied link opens the same month, and the next of these screens starts where you left off.',
  },
  {
    id: 'help-lessons',
    title: 'Recording lessons',
    text: 'Open Lessons, then Add Lessons. Each week shows a row per student; type a duration in hours (the amount follows from the rate) or an amount directly. A cell is saved on Enter, Tab or leaving it. On a phone the week shows one day at a time.',
  },
  {
    id: 'help-invoices',
    title: 'Generating, confirming and withdrawing an invoice',
    text: 'Generate Invoice first shows what the invoice would hold; nothing is saved until you choose Generate Invoice on that page, which also locks the month’s lessons. The tutor (or an admin) then confirms it. An invoice not yet confirmed can be withdrawn: its reference becomes void and is never used again, and the month’s lessons can be corrected and invoiced anew. A confirmed invoice never changes.',
  },
  {
    id: 'help-dashboard',
    title: 'The dashboard',
    text: 'The logo opens the dashboard: this month so far against last month, and the invoices and tutors that need someone, each a link to the screen that shows them.',
  },
];

/** resources (admins): the agency's details, the product's version and the help text. */
export function ResourcesPage() {
  const agency = useLoader(loadAgency, null);
  return (
    <>
      <PageHeading title="Resources" />
      <Panel aria-labelledby="agency-heading">
        <SectionHeading id="agency-heading">The agency</SectionHeading>
        <LoadState state={agency.state} onRetry={agency.retry}>
          {(details) => (
            <FactList>
              <dt>Name</dt>
              <dd>{details.name}</dd>
              <dt>Address</dt>
              <dd>{[...details.address, details.postcode].filter(Boolean).join(', ')}</dd>
              <dt>Email</dt>
              <dd>{details.email}</dd>
              <dt>Phone</dt>
              <dd>{details.phone}</dd>
            </FactList>
          )}
        </LoadState>
      </Panel>
      <Panel aria-labelledby="product-heading">
        <SectionHeading id="product-heading">About this product</SectionHeading>
        <FactList>
          <dt>Version</dt>
          <dd data-testid="product-version">{productVersion}</dd>
        </FactList>
      </Panel>
      <Panel aria-labelledby="help-heading">
        <SectionHeading id="help-heading">Help</SectionHeading>
        <Topics>
          {topics.map((topic) => (
            <li key={topic.id}>
              <a href={`#${topic.id}`}>{topic.title}</a>
            </li>
          ))}
          <li>
            <a href="/api/docs" target="_blank" rel="noopener">
              The API reference (opens in a new tab)
            </a>
          </li>
        </Topics>
        {topics.map((topic) => (
          <Help key={topic.id} id={topic.id} aria-labelledby={`${topic.id}-title`}>
            <h3 id={`${topic.id}-title`}>{topic.title}</h3>
            <p>{topic.text}</p>
          </Help>
        ))}
      </Panel>
    </>
  );
}
