
export interface NavigationSlice {
  /** `n`: the next failed decision in the open plan, then the next errored plan. */
  jumpToNextFailure(): void;
}
