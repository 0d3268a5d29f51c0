Feature: Verify before apply
  A plan's checks run in its sandbox after execute, confined as shell.run is, and each criterion
  of its definition of done gets a verdict: passed, failed, or not checked. A failed check stops
  the plan before apply until the operator confirms. Every scenario drives the `agents` command
  line as a separate process, on a real data directory, SQLite database and sandbox.

  Background:
    Given a project with a plan that writes a licence and checks it with "test -f LICENSE"

  Scenario: a plan whose checks pass is ready to apply, and a bullet with no check is not checked
    When the operator runs the verified plan
    Then the verified plan is "Ready to apply" with "Checks: 2 of 3 passed, 1 not checked"
    And applying the verified plan writes LICENSE into the project

  Scenario: a failed check stops at apply until the operator confirms
    Given the plan also checks "grep -q Apache LICENSE"
    When the operator runs the verified plan
    Then the verified plan is "Checks failed" with "Checks: 2 of 4 passed, 1 failed, 1 not checked"
    And applying the verified plan is refused, naming the check "grep -q Apache LICENSE"
    And applying the verified plan with --accept-failed-checks writes LICENSE into the project

  Scenario: an edit in the sandbox makes the verdicts stale, and apply runs the checks again
    Given the plan also checks "grep -q Apache LICENSE"
    When the operator runs the verified plan
    And the operator writes "Apache" into LICENSE in the sandbox by hand
    Then applying the verified plan runs the checks again and writes LICENSE into the project
