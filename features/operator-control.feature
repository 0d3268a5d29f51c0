Feature: Operator control: approvals, and fixing a failed plan in place
  The operator answers the calls that the plan's profile holds back, and mends a failed plan
  without discarding it. Every scenario drives the `agents` command line as a separate process,
  on a real data directory, a real SQLite database and a real sandbox copy of a project. The
  project's steps append to a counter file, so the scenarios can tell which steps ran, and how often.

  Background:
    Given an empty data directory and a project

  Scenario Outline: each profile holds back the calls its approval policy names
    Given a plan under the "<profile>" profile that writes, deletes and renames a file and runs a shell command
    When I run the plan, approving each call it waits for
    Then the calls that waited for approval were "<held>"
    And the plan is ready to apply

    Examples:
      | profile    | held                                            |
      | manual     | file.write, file.delete, file.rename, shell.run |
      | supervised | file.delete, file.rename, shell.run             |
      | trusted    | none                                            |
      | full-auto  | none                                            |

  Scenario: the restricted profile refuses the shell without asking
    Given a plan under the "restricted" profile that writes, deletes and renames a file and runs a shell command
    When I run the plan
    Then the run exits with status 1
    And the plan's error has category "policy"

  Scenario: a plan file can name the calls it wants approved
    Given a plan under the profile "{ base: trusted, approve: [file.write] }" that writes, deletes and renames a file and runs a shell command
    When I run the plan, approving each call it waits for
    Then the calls that waited for approval were "file.write"

  Scenario: approve one call, then every call of that tool
    Given a "supervised" plan of three steps that each count their run with a shell command
    When I run the plan
    Then the run exits with status 3 and the plan waits for approval of "shell.run"
    When I approve the waiting call
    Then the run exits with status 3 and the plan waits for approval of "shell.run"
    When I approve every "shell.run" call
    Then the run exits with status 0
    And the counter file reads "1 2 3"
    And the decision tree holds 2 approval decisions by the operating system user

  Scenario: a rejected call fails its step for good
    Given a "supervised" plan of three steps that each count their run with a shell command
    When I run the plan
    And I reject the waiting call because "not before the release"
    Then the run exits with status 1
    And the plan's error has category "rejected"
    And the decision tree records a rejection with the reason "not before the release"
    And the counter file reads ""

  Scenario: a pending approval survives a SIGKILL and a restart
    Given a "supervised" plan of three steps that each count their run with a shell command
    When I run the plan and kill its process with SIGKILL as soon as it asks for approval
    Then the plan is paused and waits for approval of "shell.run"
    When I approve every "shell.run" call
    Then the run exits with status 0
    And the counter file reads "1 2 3"

  Scenario: skip takes a failed plan to completion
    Given a "trusted" plan of three steps whose second step fails
    When I run the plan
    Then the run exits with status 1
    When I skip the failed step
    And I run the plan
    Then the run exits with status 0
    And the counter file reads "1 3"
    And the plan's current error is cleared

  Scenario: edit-step replaces the calls of the failed step
    Given a "trusted" plan of three steps whose second step fails
    When I run the plan
    And I replace the calls of step 2 with a shell command that counts "2b"
    And I run the plan
    Then the run exits with status 0
    And the counter file reads "1 2b 3"

  Scenario: a new profile lets the refused step run
    Given a "restricted" plan of three steps that each count their run with a shell command
    When I run the plan
    Then the plan's error has category "policy"
    When I change the profile to "trusted"
    And I run the plan
    Then the run exits with status 0
    And the counter file reads "1 2 3"

  Scenario: replan replaces the steps not done yet and keeps what is done
    Given a "trusted" plan of three steps whose second step fails
    When I run the plan
    And I replan with a plan file whose steps count "4" and "5"
    And I run the plan
    Then the run exits with status 0
    And the counter file reads "1 4 5"

  Scenario: a protected path is refused, whichever tool tries
    Given the project's invariants protect "secrets/**" and deny the command "rm -rf *"
    And a "trusted" plan whose first step writes "secrets/key.txt"
    When I run the plan
    Then the run exits with status 1
    And the plan's error has category "invariant"
    And the plan's hint names the rule "secrets/**"
    And the sandbox has no file "secrets/key.txt"

  Scenario: a shell change to a protected path is undone and refused
    Given the project's invariants protect "secrets/**" and deny the command "rm -rf *"
    And a "trusted" plan whose first step runs "mkdir -p secrets && echo leaked > secrets/key.txt && echo 1 >> counter.txt"
    When I run the plan
    Then the plan's error has category "invariant"
    And the sandbox has no file "secrets/key.txt"
    And the plan's changeset has "counter.txt" and nothing under "secrets/"

  Scenario: a denied command is refused before it runs
    Given the project's invariants protect "secrets/**" and deny the command "rm -rf *"
    And a "trusted" plan whose first step runs "rm -rf docs"
    When I run the plan
    Then the plan's error has category "invariant"
    And the sandbox still has "docs/guide.md"

  Scenario: the error is cleared after a successful retry
    Given a "trusted" plan of three steps whose second step fails
    When I run the plan
    Then the plan shows its error
    When I create "ready.txt" in the plan's sandbox
    And I retry the plan
    Then the run exits with status 0
    And the counter file reads "1 2 3"
    And the plan's current error is cleared
    And the plan's error history still holds the failure
