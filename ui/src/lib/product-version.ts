import { version } from '../../package.json';

/** The product's version, as the build took it from ui/package.json. */
export const productVersion: string = version;
