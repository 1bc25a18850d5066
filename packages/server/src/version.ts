/** Reported as serverInfo.version. Kept in step with package.json by hand (checked by a test). */
export const SERVER_VERSION = '0.1.0';
