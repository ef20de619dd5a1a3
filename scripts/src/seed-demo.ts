import { configFromEnvironment } from './config';
import { seedDemoData } from './demo-data';
import { startProduct } from './product';

// Runs the real services on a spare port beside (or instead of) `npm start`, and seeds through them.
const config = { ...configFromEnvironment(), port: 0 };
const product = await startProduct(config, { log: () => {} });
try {
  const seeded = await seedDemoData(product);
  console.log(seeded ? `Seeded ${seeded}.` : 'The store already has clients; nothing added.');
} finally {
  await product.stop();
}
