// The sandboxed preload: exposes the contract's calls and the event stream as `window.agents`, nothing more.
import { contextBridge, ipcRenderer } from 'electron';
import { createIpcBridge } from './bridge';

contextBridge.exposeInMainWorld('agents', createIpcBridge(ipcRenderer));
