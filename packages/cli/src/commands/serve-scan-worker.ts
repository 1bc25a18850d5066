import { parentPort, workerData } from 'node:worker_threads';
import { scanServedFolders } from './serve-scan.js';

// The served folders' background scan, off the main thread: its tree walk and file reads are synchronous, and
// between requests on the main thread they took most of it for as long as a read load lasted.
const { folders } = workerData as { folders: string[] };
parentPort!.postMessage(await scanServedFolders(folders));
