import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { isTooCommon, TOO_COMMON_PASSWORD } from '@agency/command-service/auth/common-passwords';
import { linkedToTutor, MIN_PASSWORD_LENGTH, role as roleSchema } from '@agency/contracts';
import { configFromEnvironment } from './config';
import { startProduct } from './product';

const USAGE = `Usage: npm run user -- add --role admin|partner|tutor|auditor --username NAME --password PASSWORD [--tutor TUTOR_ID] [--name "Full Name"]

A partner (or tutor) login must be linked to a tutor with --tutor; an admin or auditor login is not.
An auditor reads everything an admin reads and changes nothing.`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(1);
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    role: { type: 'string' },
    username: { type: 'string' },
    password: { type: 'string' },
    tutor: { type: 'string' },
    name: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
if (positionals[0] !== 'add') fail('The only command is "add".');
const role = roleSchema.safeParse(values.role);
if (!role.success) fail('--role must be admin, partner, tutor or auditor.');
const username = values.username?.trim();
if (!username) fail('--username is required.');
const password = values.password ?? '';
if (password.length < MIN_PASSWORD_LENGTH) fail(`--password must be at least ${MIN_PASSWORD_LENGTH} characters.`);
if (isTooCommon(password)) fail(`--password: ${TOO_COMMON_PASSWORD}`);
if (linkedToTutor(role.data) && !values.tutor) fail(`A ${role.data} must be linked to a tutor: add --tutor TUTOR_ID.`);

// Runs the real services on a spare port beside (or instead of) `npm start`, and registers through them.
const product = await startProduct({ ...configFromEnvironment(), port: 0 }, { log: () => {} });
if (product.createdAdmin?.generated) {
  console.log(`The store was empty: created admin ${product.createdAdmin.username} / ${product.createdAdmin.password}`);
}
try {
  const system = { id: 'system', username: 'system', role: 'admin' as const };
  const { context, appendedUpTo } = product.command.actAs(system, randomUUID());
  const { userId } = await product.command.accounts.register(context, {
    username,
    password,
    role: role.data,
    tutorId: linkedToTutor(role.data) ? (values.tutor ?? null) : null,
    name: values.name?.trim() || username,
  });
  const position = appendedUpTo();
  if (position) await product.command.deps.projections.waitFor(position, 30_000);
  console.log(`Created ${role.data} "${username}" (${userId}).`);
} catch (error) {
  console.error(`Could not create the user: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
} finally {
  await product.stop();
}
process.exit(process.exitCode ?? 0);
