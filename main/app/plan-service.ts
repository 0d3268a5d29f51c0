import type { PlanContext } from './use-cases/plan-context';
import type { PlanApplying } from './use-cases/applying';
import type { PlanApprovals } from './use-cases/approvals';
import type { PlanAuthoring } from './use-cases/authoring';
import type { AcpSettingsUseCases } from './use-cases/acp-settings';
import type { PlanFixing } from './use-cases/fixing';
import type { PlanReading } from './use-cases/reading';
import type { PlanRunning } from './use-cases/running';
import type { PlanSandboxFiles } from './use-cases/sandbox-files';
import type { PlanActions } from './use-cases/actions';
import type { PlanVerifying } from './use-cases/verifying';
import type { PlanCheckpoints } from './use-cases/checkpoints';
import type { PlanReviewing } from './use-cases/reviewing';
import type { PlanForking } from './use-cases/forking';

export type { Answer, EngineStores, PlanServiceOptions } from './use-cases/plan-context';
export type { ChangesetReview, DecisionNode, DiffEntry, ExternalEvents, ReviewStep } from './use-cases/reading';
export type { ApplyResult } from './use-cases/applying';
export type { ConfinementProbe } from '../engine/tools/confinement';

/**
 * The operations an operator performs on plans, as the CLI, the web host and Electron call them:
 * the use cases of main/app/use-cases side by side (composed in openApp), with the stores, the
 * lifecycle, its events and the tools they share.
 */
export type PlanService = Pick<PlanContext, 'stores' | 'lifecycle' | 'events' | 'registry'> &
  PlanReading &
  PlanAuthoring &
  AcpSettingsUseCases &
  PlanRunning &
  PlanApprovals &
  PlanFixing &
  PlanApplying &
  PlanSandboxFiles &
  PlanActions &
  PlanVerifying &
  PlanCheckpoints &
  PlanForking &
  PlanReviewing;
