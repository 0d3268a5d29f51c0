/// <reference types="vite/client" />
import type { Bridge } from '../../shared/contract';

declare global {
  interface Window {
    /** Set by the Electron preload; absent in a browser, where the WebSocket bridge is used. */
    agents?: Bridge;
  }
}
