export { buildDirectory, type Directory, type DirectoryOptions } from './app.js';
export { startDirectoryFromEnvironment } from './main.js';
export { startLocalWeb, type LocalWeb } from './demo/local-web/local-web-server.js';
export { SAMPLE_SITES } from './demo/local-web/sample-sites.js';
