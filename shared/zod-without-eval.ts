// Imported for its effect by code that runs under a CSP without 'unsafe-eval' (the preload):
// zod would otherwise compile its parsers with `new Function` on first use, and throw there.
import { z } from 'zod';

z.config({ jitless: true });
