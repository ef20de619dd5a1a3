import { useTheme } from '@emotion/react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatMoney } from '../lib/format';

export type EarningsRow = { name: string; earnings: number; commission: number };

/** Earnings and commission per row (a tutor, a month), as grouped bars; the page holds the same figures in text. */
export default function EarningsChart({ tutors }: { tutors: EarningsRow[] }) {
  const theme = useTheme();
  const height = Math.max(240, 56 + tutors.length * 44);
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart data={tutors} layout="vertical" margin={{ top: 8, right: 24, bottom: 8, left: 8 }}>
        <CartesianGrid strokeDasharray="3 3" horizontal={false} />
        <XAxis type="number" tickFormatter={(value: number) => `£${formatMoney(value)}`} />
        <YAxis type="category" dataKey="name" width={150} />
        <Tooltip formatter={(value) => `£${formatMoney(Number(value))}`} />
        <Legend />
        <Bar dataKey="earnings" name="Earnings" fill={theme.colors.primary} />
        <Bar dataKey="commission" name="Commission" fill="#c2410c" />
      </BarChart>
    </ResponsiveContainer>
  );
}
