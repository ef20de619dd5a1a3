import { hash, verify } from '@node-rs/argon2';

// 2 is Algorithm.Argon2id (a const enum, which isolated modules cannot read).
const ARGON2 = { algorithm: 2 } as const;

/** At most this many argon2 computations run at once; the rest queue (argon2 is memory-hard). */
export const ARGON2_CONCURRENCY = 4;

/** A counting semaphore: `run` waits for one of `size` places. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}

const argon2 = new Semaphore(ARGON2_CONCURRENCY);

/** How many verifications ran, and the most at once: for tests and the operator. */
export const argon2Stats = { verified: 0, running: 0, mostAtOnce: 0 };

const counted = async <T>(work: () => Promise<T>) =>
  argon2.run(async () => {
    argon2Stats.running++;
    argon2Stats.mostAtOnce = Math.max(argon2Stats.mostAtOnce, argon2Stats.running);
    try {
      return await work();
    } finally {
      argon2Stats.running--;
    }
  });

export const hashPassword = (password: string) => counted(() => hash(password, ARGON2));

export const verifyPassword = (passwordHash: string, password: string) =>
  counted(async () => {
    argon2Stats.verified++;
    return verify(passwordHash, password).catch(() => false);
  });
