import type { HealthAnswer } from '@agency/contracts';
import styled from '@emotion/styled';
import { useEffect, useState } from 'react';
import { getJson } from '../lib/http';

type ProjectionHealth = NonNullable<HealthAnswer['projections']>[number];
type ReactorHealth = NonNullable<HealthAnswer['reactors']>[number];

const POLL_MS = 15_000;

const Banner = styled.div(({ theme }) => ({
  color: theme.colors.warningText,
  background: theme.colors.warningBackground,
  borderBottom: `1px solid ${theme.colors.border}`,
  padding: '0.6rem 1rem',
  '& p': { margin: '0.2rem 0' },
}));

/**
 * For admins: polls GET /api/health every 15 s and names any projection that is stopped at an
 * event it cannot apply, with what failed. Hidden while all is well (or the check fails).
 */
export function HealthBanner() {
  const [stalled, setStalled] = useState<ProjectionHealth[]>([]);
  const [stuck, setStuck] = useState<ReactorHealth[]>([]);
  useEffect(() => {
    let controller: AbortController | undefined;
    const check = () => {
      controller?.abort();
      controller = new AbortController();
      getJson<HealthAnswer>('/api/health', controller.signal)
        .then((health) => {
          setStalled((health.projections ?? []).filter((p) => p.failure));
          setStuck((health.reactors ?? []).filter((r) => r.failure));
        })
        .catch(() => {});
    };
    check();
    const timer = setInterval(check, POLL_MS);
    return () => {
      clearInterval(timer);
      controller?.abort();
    };
  }, []);
  if (stalled.length === 0 && stuck.length === 0) return null;
  return (
    <Banner role="alert" data-testid="health-banner">
      {stalled.map(({ name, failure, lag }) => (
        <p key={name}>
          <strong>The {name} read model has stopped</strong> at a {failure?.type} event in {failure?.streamId} (position{' '}
          {failure?.position}): {failure?.error}. {lag ? `${lag} events are waiting. ` : ''}
          Saves are still recorded; the {name} lists will catch up once it is fixed (see README, "When a read model
          stops").
        </p>
      ))}
      {stuck.map(({ name, failure }) => (
        <p key={`reactor-${name}`}>
          <strong>The {name} workflow has stopped</strong> at a {failure?.type} event in {failure?.streamId} (position{' '}
          {failure?.position}): {failure?.error}. It tries again by itself
          {failure?.nextRetryAt ? ` (next at ${failure.nextRetryAt})` : ''}; what follows from that event waits until
          then (see docs/reactors.md).
        </p>
      ))}
    </Banner>
  );
}

const Notice = styled.div(({ theme }) => ({
  position: 'fixed',
  bottom: '1rem',
  right: '1rem',
  zIndex: 40,
  maxWidth: '24rem',
  color: theme.colors.warningText,
  background: theme.colors.warningBackground,
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
  padding: '0.75rem 1rem',
  boxShadow: '0 4px 16px rgba(16, 42, 67, 0.15)',
}));

/** Shown for a while after a save whose answer said the lists do not show it yet. */
export function CatchingUpNotice({ shown }: { shown: boolean }) {
  return (
    <div role="status" aria-live="polite">
      {shown ? <Notice>Saved. The lists are catching up and will show it shortly.</Notice> : null}
    </div>
  );
}
