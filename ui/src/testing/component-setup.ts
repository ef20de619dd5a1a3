import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

// Testing Library unmounts by itself only where the test runner's hooks are globals; here they are imported.
afterEach(cleanup);
