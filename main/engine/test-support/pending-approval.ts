import { ApprovalPending } from '../errors';

/** The id of the approval `run` stops for; fails when it finishes or throws anything else. */
export async function pendingApprovalId(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ApprovalPending) return error.approvalId;
    throw error;
  }
  throw new Error('expected an approval to be asked for');
}
