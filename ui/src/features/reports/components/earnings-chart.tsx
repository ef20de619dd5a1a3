import { useTheme } from '@emotion/react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatMoney } from '../../../lib/format';

export type TutorEarnings = { name: string; earnings: number; commission: number };

/** The month's earnings and commission by tutor, as grouped bars; the tables below hold the same figures. */
export default function EarningsChart({ tutors }: { tutors: TutorEarnings[] }) {
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
