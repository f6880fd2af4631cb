export { buildDirectory, type Directory, type DirectoryOptions } from './app.js';
export { startDirectoryFromEnvironment } from './main.js';
