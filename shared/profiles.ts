// Automation profiles: how much a plan's run may do without the operator.
import { z } from 'zod';
import { once } from './once';
import { allowedByName } from './mcp';

const nonEmpty = z.string().min(1, 'must not be empty');

export const AutomationProfileSchema = z.lazy(once(() =>
  z.object({
    name: nonEmpty,
    /** Automatic retries of transient errors; 0 turns automatic retry off. */
    autoRetryTransient: z.number().int().min(0).max(20),
    /** Whether shell.run may run at all. */
    allowShell: z.boolean(),
    /** Whether shell.run's commands may reach the network (they are confined without one otherwise). */
    allowNetwork: z.boolean().default(false),
    /** Whether shell.run may run without OS confinement where none is available, instead of refusing. */
    allowUnconfinedShell: z.boolean().default(false),
    /** Pause before every execute decision (step mode by default). */
    pauseBeforeEachDecision: z.boolean(),
    /** Tool names whose calls wait for the operator's approval; `*` means every tool. */
    approvalRequired: z.array(z.string()),
    /** Tools whose calls never wait for approval: `NAME.TOOL`, or `NAME.*` for every tool of an MCP server. */
    allow: z.array(z.string()).optional(),
    /** MCP tools their server marks read-only (readOnlyHint) need no approval; off unless set. */
    allowReadOnlyMcp: z.boolean().optional(),
  }),
));
export type AutomationProfile = z.infer<typeof AutomationProfileSchema>;

/** Every tool call waits for approval under this entry of `approvalRequired`. */
export const ANY_TOOL = '*';

export const BUILTIN_PROFILES = {
  manual: { name: 'manual', autoRetryTransient: 0, allowShell: true, allowNetwork: false, allowUnconfinedShell: false, pauseBeforeEachDecision: true, approvalRequired: [ANY_TOOL] },
  restricted: { name: 'restricted', autoRetryTransient: 3, allowShell: false, allowNetwork: false, allowUnconfinedShell: false, pauseBeforeEachDecision: false, approvalRequired: [] },
  supervised: {
    name: 'supervised',
    autoRetryTransient: 3,
    allowShell: true,
    allowNetwork: false,
    allowUnconfinedShell: false,
    pauseBeforeEachDecision: false,
    approvalRequired: ['shell.run', 'file.delete', 'file.rename'],
  },
  trusted: { name: 'trusted', autoRetryTransient: 3, allowShell: true, allowNetwork: false, allowUnconfinedShell: false, pauseBeforeEachDecision: false, approvalRequired: [] },
  'full-auto': { name: 'full-auto', autoRetryTransient: 5, allowShell: true, allowNetwork: false, allowUnconfinedShell: false, pauseBeforeEachDecision: false, approvalRequired: [] },
} as const satisfies Record<string, AutomationProfile>;

/** Whether a call of `tool` waits for the operator under `profile`, unless all its calls were approved. */
export function needsApproval(profile: AutomationProfile, tool: string, approvedForPlan: ReadonlySet<string> = new Set()): boolean {
  if (approvedForPlan.has(tool) || allowedByName(profile.allow, tool)) return false;
  return profile.approvalRequired.includes(ANY_TOOL) || profile.approvalRequired.includes(tool);
}
export type BuiltinProfileName = keyof typeof BUILTIN_PROFILES;
export const DEFAULT_PROFILE: BuiltinProfileName = 'trusted';

export const ProfileNameSchema = z.enum(Object.keys(BUILTIN_PROFILES) as [BuiltinProfileName, ...BuiltinProfileName[]]);

/** A profile reference in a plan file: a built-in name, or a built-in with fields overridden. */
export const ProfileRefSchema = z.lazy(() =>
  z.union([
    ProfileNameSchema,
    z
      .object({
        base: ProfileNameSchema.default(DEFAULT_PROFILE),
        /** The tools whose calls wait for approval, in place of the base profile's list. */
        approve: z.array(nonEmpty).optional(),
      })
      .extend(AutomationProfileSchema.unwrap().omit({ name: true }).partial().shape)
      .strict(),
  ]),
);
export type ProfileRef = z.input<typeof ProfileRefSchema>;

export function resolveProfile(ref: ProfileRef | undefined): AutomationProfile {
  if (ref === undefined) return { ...BUILTIN_PROFILES[DEFAULT_PROFILE], approvalRequired: [] };
  if (typeof ref === 'string') {
    const base = BUILTIN_PROFILES[ref];
    return { ...base, approvalRequired: [...base.approvalRequired] };
  }
  const { base = DEFAULT_PROFILE, approve, ...overrides } = ref;
  const builtin = BUILTIN_PROFILES[base];
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined));
  return { ...builtin, approvalRequired: [...(approve ?? builtin.approvalRequired)], ...defined, name: base };
}
