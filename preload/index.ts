// The sandboxed preload: exposes the contract's calls and the event stream as `window.agents`, nothing more.
import '../shared/zod-without-eval';
import { contextBridge, ipcRenderer } from 'electron';
import { createIpcBridge } from './bridge';

contextBridge.exposeInMainWorld('agents', createIpcBridge(ipcRenderer));
